from .version_check import check_versions

__all__ = ['check_versions']
