"""onyx.dask on a distributed LocalCluster of 2 worker processes (1 thread each): 2,000 inputs scored through
map_blocks and a dataframe through map_partitions give the single-process results, and each worker created its
session once."""
import os

import numpy as np
import pytest

dask = pytest.importorskip("dask")
distributed = pytest.importorskip("distributed")

import dask.array as da  # noqa: E402
import onnx  # noqa: E402
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

import onyx  # noqa: E402
import onyx.dask  # noqa: E402


@pytest.fixture(scope="module")
def model_path(tmp_path_factory):
    rng = np.random.default_rng(5)
    w = rng.standard_normal((12, 4)).astype(np.float32)
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["t"]), helper.make_node("Tanh", ["t"], ["y"])], "mlp",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 12])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 4])], [numpy_helper.from_array(w, "w")])
    path = tmp_path_factory.mktemp("dask") / "mlp.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), str(path))
    return str(path)


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
    c = distributed.Client(cluster)
    yield c
    c.close()
    cluster.close()


def test_map_blocks_matches_single_process_and_creates_one_session_per_worker(client, model_path):
    x = np.random.default_rng(1).standard_normal((2000, 12)).astype(np.float32)
    expected = onyx.InferenceSession(model_path).run(None, {"x": x})[0]
    arr = da.from_array(x, chunks=(125, 12))  # 16 tasks over 2 workers
    y = onyx.dask.map_blocks(model_path, arr, batch_size=50).compute()
    assert y.shape == (2000, 4)
    np.testing.assert_allclose(y, expected, rtol=1e-6, atol=1e-6)
    creations = client.run(onyx.dask.session_creations)
    assert len(creations) == 2
    assert all(n == 1 for n in creations.values()), creations
    # Again, shipping the model as bytes: one more session per worker (a new key), still once each.
    with open(model_path, "rb") as f:
        data = f.read()
    y2 = onyx.dask.map_blocks(data, arr).compute()
    np.testing.assert_allclose(y2, expected, rtol=1e-6, atol=1e-6)
    assert all(n == 2 for n in client.run(onyx.dask.session_creations).values())


def test_map_partitions_scores_dataframe_columns(client, model_path):
    import dask.dataframe as dd
    import pandas as pd

    rng = np.random.default_rng(2)
    cols = [f"f{i}" for i in range(12)]
    pdf = pd.DataFrame(rng.standard_normal((300, 12)).astype(np.float32), columns=cols)
    pdf["id"] = np.arange(300)
    ddf = dd.from_pandas(pdf, npartitions=6)
    out = onyx.dask.map_partitions(model_path, ddf, input_columns=cols, output_columns=["a", "b", "c", "d"]).compute()
    expected = onyx.InferenceSession(model_path).run(None, {"x": pdf[cols].to_numpy()})[0]
    assert list(out.columns) == ["a", "b", "c", "d"]
    np.testing.assert_allclose(out.sort_index().to_numpy(), expected, rtol=1e-6, atol=1e-6)


def test_errors_name_the_problem(model_path):
    arr = da.zeros((10, 12), chunks=(5, 6), dtype=np.float32)
    with pytest.raises(ValueError, match="first axis only"):
        onyx.dask.map_blocks(model_path, arr)
    with pytest.raises(ValueError, match="not an input"):
        onyx.dask.map_blocks(model_path, arr.rechunk((5, 12)), input_name="nope")
