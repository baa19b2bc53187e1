"""Weighted k-nearest-neighbour classification of frozen features.

The quick check of self-supervised features used by InstDisc and DINO:
cosine similarity to every training feature, the k most similar vote for
their class with weight exp(similarity / temperature).
"""
import torch
import torch.nn.functional as F

from .progress import stage
from .readout_registry import Readout, register_readout

__all__ = ['KNN', 'knn_accuracy']

KNN_CHUNK = 1024  # test features the k-NN compares at once


def knn_accuracy(train_features, train_labels, test_features, test_labels,
                 k=20, temperature=0.07, chunk=KNN_CHUNK, tick=None):
    """Top-1 accuracy (%) of the weighted cosine k-NN classifier.

    Args:
        train_features (torch.Tensor): [N_train, C].
        train_labels (torch.Tensor): int64 [N_train].
        test_features (torch.Tensor): [N_test, C].
        test_labels (torch.Tensor): int64 [N_test].
        k (int): neighbours that vote (20, as DINO's default).
        temperature (float): sharpness of the vote weights (0.07).
        chunk (int): test features compared at once (bounds memory).
        tick (Callable[[], None] | None): called after each chunk
            (progress).

    Returns:
        float: accuracy in percent.
    """
    if not isinstance(k, int) or not 1 <= k <= len(train_features):
        raise ValueError(f'k must be an int in [1, {len(train_features)}] '
                         f'(the training set size), got {k!r}')
    if temperature <= 0:
        raise ValueError(f'temperature must be > 0, got {temperature}')
    num_classes = int(max(train_labels.max(), test_labels.max())) + 1
    train = F.normalize(train_features.float(), dim=1)
    correct = 0
    for start in range(0, len(test_features), chunk):
        test = F.normalize(test_features[start:start + chunk].float(), dim=1)
        similarity, neighbour = (test @ train.T).topk(k, dim=1)  # [n, k]
        votes = torch.zeros(len(test), num_classes, device=test.device)
        votes.scatter_add_(1, train_labels[neighbour],
                           (similarity / temperature).exp())
        correct += (votes.argmax(1) == test_labels[start:start + chunk]).sum()
        if tick is not None:
            tick()
    return 100.0 * float(correct) / len(test_features)


@register_readout('knn')
class KNN(Readout):
    """Weighted cosine k-NN on the averaged last-layer tokens."""
    title = 'k-NN (k={k})'

    def read(self, train, test, settings, report=None):
        chunks = -(-len(test[0]) // KNN_CHUNK)
        title = self.title.format(k=settings['k'])
        return {'knn': knn_accuracy(
            *train, *test, k=settings['k'],
            temperature=settings['temperature'], chunk=KNN_CHUNK,
            tick=stage(report, f'{title}: {len(test[0])} test images',
                       chunks))}
