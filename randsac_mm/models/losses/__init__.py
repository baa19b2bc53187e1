from .global_token_mse_loss import GlobalTokenMSELoss

__all__ = ['GlobalTokenMSELoss']
