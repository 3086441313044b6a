"""Training can start again from a committed model when its torch checkpoint is gone (work/ is not
committed): the network rebuilt from the ONNX file must read exactly as the model does, and must
stay so once its BatchNorms are refitted for training. Needs the training extras (torch, onnx)."""

from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("onnx")

from models.train.onnx_weights import detector_from_onnx, reader_from_onnx, refit_batchnorm, start_from  # noqa: E402
from reader.vision.onnx_model import OnnxModel  # noqa: E402

MODELS = Path(__file__).resolve().parents[1] / "models"


def _crops(seed: int, n: int = 32) -> np.ndarray:
    """Die-like inputs: a bright blob with marks on a darker table, so the activations are not
    those of pure noise."""
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[:96, :96]
    out = np.empty((n, 3, 96, 96), np.float32)
    for i in range(n):
        cx, cy, r = rng.uniform(35, 61, 2).tolist() + [rng.uniform(18, 30)]
        die = ((xx - cx) ** 2 + (yy - cy) ** 2 < r * r).astype(np.float32)
        marks = (np.sin(xx / rng.uniform(2, 5)) * np.cos(yy / rng.uniform(2, 5)) > 0.6) * die
        for c in range(3):
            out[i, c] = 0.2 * rng.random() + die * rng.uniform(0.4, 0.8) - 0.3 * marks + rng.normal(0, 0.03, (96, 96))
    return np.clip(out, 0, 1)


@pytest.mark.parametrize("name", ["reader.onnx", "reader_top.onnx", "reader_top_d6.onnx"])
def test_rebuilt_network_reads_as_the_committed_model_does(name):
    x = _crops(1)
    want = OnnxModel(MODELS / name)(x)
    net = reader_from_onnx(MODELS / name, check=False)
    with torch.no_grad():
        got = [t.numpy() for t in net(torch.from_numpy(x))]
    for w, g in zip(want, got):
        np.testing.assert_allclose(g, w, atol=1e-3)


def test_refitted_batchnorm_keeps_the_readings_and_normalises_a_training_batch():
    net = reader_from_onnx(MODELS / "reader_top.onnx")
    x = torch.from_numpy(_crops(2, 64))
    with torch.no_grad():
        before = net(x)[1]
        refit_batchnorm(net, [x[:32], x[32:]])
        after = net(x)[1]
        torch.testing.assert_close(after, before, atol=1e-3, rtol=1e-3)
        # in training mode each BatchNorm uses the batch's own statistics: on a batch like the
        # ones it was refitted on, the readings barely move (dropout off to compare)
        net.train()
        net.drop.p = 0.0
        trained_view = net(x)[1]
    assert float((trained_view - before).abs().mean()) < 0.05 * float(before.abs().mean())


def test_rebuilt_detector_finds_as_the_committed_one_and_keeps_it_once_refitted():
    """The detector has bare convolutions (its lateral 1x1s and head, no BatchNorm): they take their
    bias themselves. A frame of dice-like blobs, its heat and boxes compared before and after refit."""
    rng = np.random.default_rng(4)
    frame = np.concatenate([_crops(5, 10)[i] for i in range(10)], axis=2)[:, :, :640]  # 3 x 96 x 640
    x = np.ascontiguousarray(np.concatenate([frame, frame[:, ::-1]], axis=1)[None])  # 1 x 3 x 192 x 640
    x = np.clip(x + rng.normal(0, 0.02, x.shape).astype(np.float32), 0, 1).astype(np.float32)
    want = OnnxModel(MODELS / "detector.onnx")(x)[0]
    net = detector_from_onnx(MODELS / "detector.onnx", check=False)
    with torch.no_grad():
        got = net(torch.from_numpy(x)).numpy()
        np.testing.assert_allclose(got, want, atol=1e-3)
        refit_batchnorm(net, [torch.from_numpy(x)])
        np.testing.assert_allclose(net(torch.from_numpy(x)).numpy(), want, atol=1e-3)


def test_a_missing_starting_point_is_refused_not_trained_from_scratch(tmp_path):
    with pytest.raises(SystemExit, match="no such file"):
        start_from(tmp_path / "reader.pt", lambda: [])


SOUP_ENDS = {"all of the first": (0.0, "reader.onnx"), "all of the second": (1.0, "reader_top.onnx")}


@pytest.mark.parametrize("share, reads_as", SOUP_ENDS.values(), ids=SOUP_ENDS.keys())
def test_a_soup_at_either_end_reads_as_that_model(share, reads_as):
    """models.train.soup: weights averaged with the second's share; at 0 or 1 it is that model."""
    from models.train.nets import DiceReaderNet
    from models.train.soup import soup

    net = DiceReaderNet()
    net.load_state_dict(soup(MODELS / "reader.onnx", MODELS / "reader_top.onnx", share))
    net.eval()
    x = _crops(3)
    with torch.no_grad():
        got = [t.numpy() for t in net(torch.from_numpy(x))]
    for w, g in zip(OnnxModel(MODELS / reads_as)(x), got):
        np.testing.assert_allclose(g, w, atol=1e-3)


def test_a_soup_is_the_weights_average_and_a_share_outside_0_1_is_refused():
    from models.train.soup import soup

    a = reader_from_onnx(MODELS / "reader.onnx").state_dict()
    b = reader_from_onnx(MODELS / "reader_top.onnx").state_dict()
    s = soup(MODELS / "reader.onnx", MODELS / "reader_top.onnx", 0.3)
    for k in ("features.0.0.weight", "face_head.weight", "type_head.bias"):
        torch.testing.assert_close(s[k], 0.7 * a[k] + 0.3 * b[k])
    with pytest.raises(ValueError, match="between 0 and 1"):
        soup(MODELS / "reader.onnx", MODELS / "reader_top.onnx", 1.5)


def test_a_soup_given_as_the_start_trains_from_the_soups_readings(tmp_path):
    """`--init soup.pt` (models.train.soup writes folded weights): the BatchNorms are refitted as for
    an ONNX start, so a training batch reads nearly as the soup does, not at random."""
    from models.train.soup import soup

    torch.save(soup(MODELS / "reader.onnx", MODELS / "reader.onnx", 0.3), tmp_path / "soup.pt")
    x = torch.from_numpy(_crops(4, 64))
    want = torch.from_numpy(OnnxModel(MODELS / "reader.onnx")(x.numpy())[0])
    net = start_from(tmp_path / "soup.pt", lambda: [x[:32], x[32:]])
    assert net.training
    net.drop.p = 0.0
    with torch.no_grad():
        got = net(x)[0]
    assert float((got - want).abs().mean()) < 0.05 * float(want.abs().mean())


def test_a_trained_checkpoint_is_loaded_as_it_is(tmp_path):
    """A checkpoint train_* saved (BatchNorms with their own statistics) is not refitted."""
    from models.train.nets import DiceReaderNet

    net = DiceReaderNet()
    with torch.no_grad():
        for m in net.modules():
            if isinstance(m, torch.nn.BatchNorm2d):
                m.running_mean.uniform_(-0.5, 0.5)
                m.running_var.uniform_(0.5, 2.0)
    torch.save(net.state_dict(), tmp_path / "trained.pt")
    got = start_from(tmp_path / "trained.pt", lambda: pytest.fail("a trained checkpoint was refitted"))
    for k, v in net.state_dict().items():
        torch.testing.assert_close(got.state_dict()[k], v)


def test_rebuilt_lean_look_reads_as_the_committed_one_does():
    # the lean look's checkpoint is gone too: train_lean --resume models/reader_lean.onnx teaches on
    # from this network, which must say what the model says, at every angle, before and after its
    # BatchNorms are refitted for training
    from models.train.onnx_weights import folded, lean_from_onnx

    x = _crops(3)
    slant = np.linspace(0, 50, len(x), dtype=np.float32).reshape(-1, 1)
    want = OnnxModel(MODELS / "reader_lean.onnx").run(x, slant)[0]
    net = lean_from_onnx(MODELS / "reader_lean.onnx", check=False)
    assert folded(net)
    xt, at = torch.from_numpy(x), torch.from_numpy(slant)
    with torch.no_grad():
        np.testing.assert_allclose(net(xt, at).numpy(), want, atol=1e-3)
        refit_batchnorm(net, [(xt[:16], at[:16]), (xt[16:], at[16:])])
        np.testing.assert_allclose(net(xt, at).numpy(), want, atol=1e-3)
    assert not folded(net)


def test_an_exported_lean_look_comes_with_its_own_head(tmp_path):
    # a camera guess asks the look under 87 set-ups with its head apart (reader.vision.lean.p_leaning_under):
    # `export lean` writes the head beside the look, and the look's features through the head are its logits
    from models.train.export import export_lean, head_path
    from models.train.onnx_weights import lean_from_onnx

    torch.save(lean_from_onnx(MODELS / "reader_lean.onnx", check=False).state_dict(), tmp_path / "lean.pt")
    out = tmp_path / "reader_lean.onnx"
    export_lean(tmp_path / "lean.pt", out, {"lean_threshold": 0.5})
    x = _crops(4, 8)
    slant = np.linspace(0, 40, len(x), dtype=np.float32).reshape(-1, 1)
    logits, features = OnnxModel(out).run(x, slant)
    assert features.shape == (8, 576) and head_path(out).name == "reader_lean_head.onnx"
    np.testing.assert_allclose(OnnxModel(head_path(out)).run(features, slant)[0], logits, atol=1e-5)
    np.testing.assert_allclose(logits, OnnxModel(MODELS / "reader_lean.onnx").run(x, slant)[0], atol=1e-3)
