# MNIST5k's pixel statistics (its 4000 training digits padded to 32 px):
# the normalisation of every model pretrained on it (the demo's), and so of
# the transfers of those encoders to the digit scenes, which must normalise
# as their encoder learned (ImageNet's statistics would put the scenes'
# black background at -2.12 where the encoder saw -0.36).
mnist5k_mean = [25.59] * 3
mnist5k_std = [70.23] * 3
