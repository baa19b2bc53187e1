"""Features of a frozen encoder, and the two evaluations run on them."""
import torch

from .knn import knn_accuracy
from .linear_probe import linear_probe_accuracy

__all__ = ['evaluate_frozen', 'extract_features']


def pooled(features):
    """The probe feature of an encoder output: [B, C] as it is; a feature
    map [B, C, h, w] or tokens [B, N, C] averaged over positions (the
    paper's averaged tokens; RandSAC's ``extract_feat`` already pools)."""
    if features.dim() == 4:
        return features.flatten(2).mean(2)
    if features.dim() == 3:
        return features.mean(1)
    return features


@torch.no_grad()
def extract_features(model, dataloader):
    """Runs the model's encoder over a labelled data loader.

    Args:
        model: a self-supervised algorithm (``RandSAC``, mmpretrain's
            ``MAE``, ...) or classifier: its ``data_preprocessor`` normalises
            the batch and its ``extract_feat`` gives the encoder output.
        dataloader: yields mmpretrain batches whose data samples carry
            ``gt_label``.

    Returns:
        tuple: features float32 [N, C] and labels int64 [N], on the CPU.
    """
    model.eval()
    features, labels = [], []
    for batch in dataloader:
        data = model.data_preprocessor(batch, False)
        inputs = data['inputs']
        out = model.extract_feat(inputs[0] if isinstance(inputs, list)
                                 else inputs)
        features.append(pooled(out[-1] if isinstance(out, tuple) else out)
                        .float().cpu())
        labels.extend(int(s.gt_label[0]) for s in data['data_samples'])
    return torch.cat(features), torch.tensor(labels, dtype=torch.long)


def evaluate_frozen(model, train_loader, test_loader, k=20, temperature=0.07,
                    probe_epochs=90, seed=0):
    """The linear probe and the k-NN accuracy of a frozen encoder.

    Args:
        model: see :func:`extract_features`.
        train_loader: the labelled training images, without augmentation
            (a test pipeline): the probe's training features and the k-NN's
            neighbours.
        test_loader: the labelled test images.
        k, temperature: see :func:`knn_accuracy`.
        probe_epochs (int): see :func:`linear_probe_accuracy`.
        seed (int): the probe's seed.

    Returns:
        dict: ``linear`` and ``knn`` top-1 accuracies (%), ``feature_dim``.
    """
    train = extract_features(model, train_loader)
    test = extract_features(model, test_loader)
    warmup = min(10, probe_epochs // 9)
    return dict(
        linear=linear_probe_accuracy(*train, *test, epochs=probe_epochs,
                                     warmup_epochs=warmup, seed=seed),
        knn=knn_accuracy(*train, *test, k=k, temperature=temperature),
        feature_dim=int(train[0].shape[1]))
