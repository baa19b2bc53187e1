"""The linear probe of every encoder layer: where the encoder keeps what a
linear classifier reads best (autoregressive encoders often peak before
their last layer)."""
import statistics

from .linear_probe import linear_probe_accuracy
from .progress import epoch_count, stage
from .readout_registry import Readout, register_readout

__all__ = ['LayerProbes', 'best_layer']


def best_layer(layer_accuracies):
    """The 1-based index of the layer whose probe reads out best."""
    return max(range(len(layer_accuracies)),
               key=layer_accuracies.__getitem__) + 1


@register_readout('layers')
class LayerProbes(Readout):
    """The linear probe on each layer's averaged final-normed tokens.

    Results: ``layer_linear``, one accuracy per layer, and ``best_layer``
    (1-based).
    """
    title = 'linear probe per layer'
    features = 'layers'
    accuracy = False
    result_key = 'layer_linear'

    def read(self, train, test, settings, report=None):
        layers = train[0].shape[1]
        epochs = settings['probe_epochs']
        every_epoch = stage(
            report, f'linear probes of the {layers} layers: {layers} x '
            f'{epoch_count(epochs)}', layers * epochs)
        accuracies = [
            linear_probe_accuracy(
                train[0][:, i], train[1], test[0][:, i], test[1],
                epochs=epochs, warmup_epochs=settings['warmup_epochs'],
                seed=settings['seed'], tick=every_epoch)
            for i in range(layers)]
        return dict(layer_linear=accuracies, best_layer=best_layer(accuracies))

    def mean_over_seeds(self, results):
        means = [statistics.mean(layer) for layer in zip(
            *(r['layer_linear'] for r in results))]
        return dict(layer_linear=means, best_layer=best_layer(means))
