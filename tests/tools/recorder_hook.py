"""A test-only hook that records, per rank and iteration, the training loss
and the segment layouts of the batch, and on the batch data path each
sample's crop box and flip (imported by the test configs of
test_distributed_and_resume.py through custom_imports)."""
import json
import os.path as osp

import numpy as np
from mmengine.dist import get_rank
from mmengine.hooks import Hook
from mmengine.registry import HOOKS


@HOOKS.register_module()
class LayoutRecorderHook(Hook):
    priority = 'LOWEST'

    def after_train_iter(self, runner, batch_idx, data_batch=None,
                         outputs=None):
        layouts = [np.asarray(s.token_rank).tolist()
                   for s in data_batch['data_samples']]
        row = dict(iter=runner.iter + 1, loss=float(outputs['loss']),
                   layouts=layouts)
        samples = data_batch['data_samples']
        if 'crop_box' in samples[0].metainfo_keys():
            row['crops'] = [np.asarray(s.crop_box).tolist() + [int(s.flip)]
                            for s in samples]
        path = osp.join(runner.work_dir, f'record_rank{get_rank()}.jsonl')
        # Each record starts a line of its own: a SIGKILL may cut the last
        # one short (a write of several pages), and the resumed run's first
        # record must not be joined to it (records() skips a cut line).
        with open(path, 'a') as f:
            f.write('\n' + json.dumps(row))
