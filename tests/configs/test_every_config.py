"""Every config, parsed once: every training config carries the run's
protections."""
import glob
import os.path as osp

from mmengine.config import Config

from ..conftest import REPO_ROOT

CONFIGS = sorted(
    p for p in glob.glob(osp.join(REPO_ROOT, 'configs', '**', '*.py'),
                         recursive=True) if '_base_' not in p)


def test_every_training_config_keeps_a_checkpoint_and_stops_on_signals():
    """docs/guarantees.md: every config that trains (pretraining, probes,
    fine-tunes, UperNet, Mask R-CNN) checkpoints with AtomicCheckpointHook
    through the atomic backend (its default) and stops on SIGTERM and
    SIGUSR1 with PreemptionHook."""
    for path in CONFIGS:
        cfg = Config.fromfile(path)
        if cfg.get('train_cfg') is None:
            continue  # a config that does not train
        checkpoint = cfg.default_hooks.checkpoint
        assert checkpoint.type == 'AtomicCheckpointHook', path
        assert checkpoint.get('backend_args') is None, path
        assert 'PreemptionHook' in {h.type for h in cfg.custom_hooks}, path
