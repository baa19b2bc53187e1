# CIFAR-10's pixel statistics (RGB, 0-255): the normalisation of every model
# pretrained or evaluated on it, on the per-sample pipeline and on the batch
# path alike.
cifar10_mean = [125.307, 122.961, 113.8575]
cifar10_std = [51.5865, 50.847, 51.255]
