from .randsac_head import GlobalTokenMSELoss, RandSACPretrainHead

__all__ = ['GlobalTokenMSELoss', 'RandSACPretrainHead']
