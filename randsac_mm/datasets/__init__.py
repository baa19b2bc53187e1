from .digits import DigitsDataset

__all__ = ['DigitsDataset']
