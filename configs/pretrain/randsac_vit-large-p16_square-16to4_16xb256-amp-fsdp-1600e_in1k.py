# The ViT-L/16 config beside this one, with its weights, gradients and AdamW
# state sharded over the GPUs (FSDP, one unit per transformer layer) instead
# of replicated (DDP): the path for models whose states do not fit one GPU.
# tools/train.py runs it with mmengine's FlexibleRunner (CUDA GPUs):
#   tools/dist_train.sh configs/pretrain/randsac_vit-large-p16_square-16to4_16xb256-amp-fsdp-1600e_in1k.py 8
_base_ = ['./randsac_vit-large-p16_square-16to4_16xb256-amp-1600e_in1k.py']
strategy = dict(
    type='FSDPStrategy',
    model_wrapper=dict(auto_wrap_policy='transformer_layer_wrap_policy'))
