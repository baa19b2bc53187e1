# Fashion-MNIST's pixel statistics (its training images padded to 32 px):
# the normalisation of every model pretrained on it, on the per-sample
# pipeline and on the batch path alike.
fashion_mnist_mean = [55.84] * 3
fashion_mnist_std = [84.61] * 3
