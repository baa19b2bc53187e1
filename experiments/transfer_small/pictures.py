"""The small transfer study's pictures: validation scenes, their ground
truth and each initialisation's prediction at the study's first seed, one
picture per task (``<records>/<task>.png``)."""
import os.path as osp

import numpy as np

from .runs import TASKS, run_config, run_length

__all__ = ['draw_predictions']

SCENES_SHOWN = 4
SCORE_SHOWN = 0.3  # detections drawn: score at least this


def _final_checkpoint(folder, task, settings):
    length = run_length(task, settings)
    name = (f"iter_{length['iters']}.pth" if task == 'segmentation'
            else f"epoch_{length['epochs']}.pth")
    path = osp.join(folder, name)
    return path if osp.isfile(path) else None


def _run_checkpoint(task, init, seed, settings):
    """The final checkpoint of the run, or None when it has none here."""
    folder = osp.join(settings.work_dir, 'runs',
                      f'{task}_{init}_seed{seed}')
    return _final_checkpoint(folder, task, settings)


def _predict(task, init, seed, settings, items, checkpoint):
    """The run's final model (``checkpoint``) on ``items`` (the validation
    data set's first scenes): a list of data samples with predictions."""
    import torch
    from mmengine.dataset import pseudo_collate
    from mmengine.registry import DefaultScope
    from mmengine.runner import load_checkpoint

    cfg = run_config(task, init, seed, None, settings)
    cfg.model.backbone.init_cfg = None  # the trained weights replace it
    scope = 'mmseg' if task == 'segmentation' else 'mmdet'
    with DefaultScope.overwrite_default_scope(scope):
        if scope == 'mmseg':
            from mmseg.registry import MODELS
        else:
            from mmdet.registry import MODELS
        model = MODELS.build(cfg.model)
        load_checkpoint(model, checkpoint, map_location='cpu',
                        logger='silent')
        model.eval()
        with torch.no_grad():
            return model.test_step(pseudo_collate(items))


def _validation_items(task, settings):
    from mmengine.registry import DefaultScope

    cfg = run_config(task, 'random', 0, None, settings)
    scope = 'mmseg' if task == 'segmentation' else 'mmdet'
    with DefaultScope.overwrite_default_scope(scope):
        if scope == 'mmseg':
            from mmseg.registry import DATASETS
        else:
            from mmdet.registry import DATASETS
        dataset = DATASETS.build(cfg.val_dataloader.dataset)
        return [dataset[i] for i in range(min(SCENES_SHOWN, len(dataset)))]


def _palette():
    """Class colours: black background, matplotlib's ten distinct 'tab10'
    colours for the digits (the data set's palette has near twins)."""
    from matplotlib import colormaps
    digits = colormaps['tab10'](np.arange(10))[:, :3] * 255
    return np.concatenate([[[0, 0, 0]], digits]).astype(np.uint8)


def _class_map(ax, labels, palette):
    shown = palette[np.clip(labels, 0, len(palette) - 1)]
    shown[labels == 255] = 255  # ignored (none in the scenes)
    ax.imshow(shown, interpolation='nearest')


def _instances(ax, image, instances, palette, with_scores):
    """Masks tinted by class over the scene, boxes, and the digit (and its
    score) at each box."""
    from matplotlib.patches import Rectangle
    ax.imshow(image, cmap='gray', interpolation='nearest')
    overlay = np.zeros(image.shape + (4, ))
    keep = np.ones(len(instances.labels), bool) if not with_scores else \
        instances.scores.numpy() >= SCORE_SHOWN
    boxes = instances.bboxes  # ground truth: mmdet's HorizontalBoxes
    boxes = np.asarray(getattr(boxes, 'tensor', boxes), float)
    masks = instances.masks
    masks = masks.to_ndarray() if hasattr(masks, 'to_ndarray') else \
        np.asarray(masks)
    for i in np.nonzero(keep)[0]:
        label = int(instances.labels[i])
        colour = palette[label + 1] / 255
        overlay[masks[i].astype(bool)] = (*colour, 0.6)
        x0, y0, x1, y1 = boxes[i]
        ax.add_patch(Rectangle((x0, y0), x1 - x0, y1 - y0, fill=False,
                               color=colour, lw=1))
        text = str(label) + (f' {float(instances.scores[i]):.2f}'
                             if with_scores else '')
        ax.text(x0, y0, text, color='white', fontsize=6, va='bottom',
                bbox=dict(facecolor=colour, pad=0.5, lw=0))
    ax.imshow(overlay, interpolation='nearest')


def draw_predictions(task, settings, log=print):
    """Writes ``<records>/<task>.png``: a row per validation scene, columns
    scene, ground truth and each initialisation's prediction (first seed).
    Initialisations whose run has no final checkpoint here are left out.
    """
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt

    seed = settings.seeds[0]
    checkpoints = {init: _run_checkpoint(task, init, seed, settings)
                   for init in settings.inits if init in TASKS[task]['inits']}
    checkpoints = {k: v for k, v in checkpoints.items() if v is not None}
    if not checkpoints:
        return None
    items = _validation_items(task, settings)
    columns = [(init, _predict(task, init, seed, settings, items, path))
               for init, path in checkpoints.items()]
    palette = _palette()
    fig, axes = plt.subplots(len(items), 2 + len(columns),
                             figsize=(1.6 * (2 + len(columns)),
                                      1.7 * len(items)), squeeze=False)
    for row, item in enumerate(items):
        image = item['inputs'][0].numpy()
        sample = item['data_samples']
        axes[row, 0].imshow(image, cmap='gray', interpolation='nearest')
        if task == 'segmentation':
            _class_map(axes[row, 1], sample.gt_sem_seg.data[0].numpy(),
                       palette)
        else:
            _instances(axes[row, 1], image, sample.gt_instances, palette,
                       with_scores=False)
        for col, (init, samples) in enumerate(columns, start=2):
            predicted = samples[row]
            if task == 'segmentation':
                _class_map(axes[row, col],
                           predicted.pred_sem_seg.data[0].numpy(), palette)
            else:
                _instances(axes[row, col], image,
                           predicted.pred_instances, palette,
                           with_scores=True)
    titles = ['scene', 'ground truth'] + [init for init, _ in columns]
    for col, title in enumerate(titles):
        axes[0, col].set_title(title, fontsize=7)
    for ax in axes.flat:
        ax.set_xticks([])
        ax.set_yticks([])
    if task == 'segmentation':
        from matplotlib.patches import Patch

        from randsac_mm.downstream.digit_scenes import DIGIT_SCENE_CLASSES
        fig.legend(handles=[Patch(color=palette[i] / 255, label=name)
                            for i, name in enumerate(DIGIT_SCENE_CLASSES)],
                   loc='lower center', ncol=11, fontsize=6, frameon=False)
    fig.suptitle(f'{task} on validation scenes, seed {seed}', fontsize=8)
    fig.tight_layout(rect=(0, 0.04, 1, 1))
    path = osp.join(settings.records, f'{task}.png')
    fig.savefig(path, dpi=130)
    plt.close(fig)
    log(f'wrote {path}')
    return path
