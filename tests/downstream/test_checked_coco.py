"""CheckedCocoDataset: the boxes and images mmdet leaves out are said (its
bad files: tests/datasets/test_every_data_set_walked.py)."""
import json

from mmengine.registry import DefaultScope

from .. import data_factory

ANNOTATIONS = 'annotations/instances_train2017.json'


def build(root):
    from mmdet.registry import DATASETS

    import randsac_mm.downstream  # noqa: F401  (registers)
    with DefaultScope.overwrite_default_scope('mmdet'):
        return DATASETS.build(dict(
            type='CheckedCocoDataset', data_root=str(root) + '/',
            ann_file=ANNOTATIONS, data_prefix=dict(img='train2017/'),
            filter_cfg=dict(filter_empty_gt=True, min_size=32),
            pipeline=[]))


def test_left_out_boxes_and_images_are_said(tmp_path, logged):
    data_factory.write_coco(str(tmp_path))
    path = tmp_path / ANNOTATIONS
    content = json.loads(path.read_text())
    first = content['annotations'][0]
    content['annotations'].append(dict(first, id=999, area=0.0))
    content['annotations'].append(dict(first, id=998, bbox=[500., 500.,
                                                            10., 10.]))
    # The last image without its annotations: filter_empty_gt drops it.
    last = content['images'][-1]['id']
    content['annotations'] = [a for a in content['annotations']
                              if a['image_id'] != last]
    path.write_text(json.dumps(content))
    dataset = build(tmp_path)
    assert len(dataset) == 3
    said = '\n'.join(logged)
    assert 'COCO: left out 2 boxes outside their image or of no area' in said
    assert 'COCO: left out 1 of 4 images by filter_cfg' in said
