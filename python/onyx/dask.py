"""Batch inference on Dask: score a model over a dask array or a dask dataframe, on one machine or a cluster.

``import onyx.dask`` needs Debian's python3-dask (and python3-distributed for a cluster). Each worker process
creates its session once, the first time one of its tasks needs the model, and reuses it for every later task
(``session_creations()`` on a worker says how many it made). Ship the model by path when every worker can read it
(a shared folder), or as bytes (they travel with each task: fine for small models). docs/batch.md has the setup of
a cluster (dask-scheduler on one machine, dask-worker on the others).
"""
import hashlib
import os
import threading

import numpy as np

from .session import InferenceSession, SessionOptions

__all__ = ["map_blocks", "map_partitions", "session_creations"]

# Sessions of this process, keyed by model identity and thread count (one per worker process, shared by its tasks:
# a session may run from several threads at once).
_SESSIONS = {}
_LOCK = threading.Lock()
_CREATED = [0]


def _model_key(model):
    if isinstance(model, (bytes, bytearray, memoryview)):
        return "sha256:" + hashlib.sha256(bytes(model)).hexdigest()
    path = os.path.abspath(os.fspath(model))
    st = os.stat(path)
    return f"path:{path}:{st.st_mtime_ns}:{st.st_size}"


def _session(model, threads):
    key = (_model_key(model), int(threads))
    with _LOCK:
        s = _SESSIONS.get(key)
        if s is None:
            options = SessionOptions()
            options.intra_op_num_threads = int(threads)
            s = InferenceSession(bytes(model) if not isinstance(model, (str, os.PathLike)) else model, options)
            _SESSIONS[key] = s
            _CREATED[0] += 1
        return s


def _probe(model):
    """The session map_blocks/map_partitions use in the calling process to learn names, output shape and dtype: one
    per model, kept (creating a session for every call cost more than scoring a few hundred small items)."""
    key = ("probe", _model_key(model))
    with _LOCK:
        s = _SESSIONS.get(key)
        if s is None:
            s = InferenceSession(model if isinstance(model, (str, os.PathLike)) else bytes(model))
            _SESSIONS[key] = s
        return s


def session_creations():
    """How many sessions this process has created (run it on each worker with ``client.run``)."""
    return _CREATED[0]


def _run_batches(session, input_name, output_name, block, batch_size):
    """Runs ``block`` in pieces of at most ``batch_size`` rows and concatenates the outputs."""
    if batch_size is None or block.shape[0] <= batch_size:
        return session.run([output_name], {input_name: block})[0]
    parts = [session.run([output_name], {input_name: block[i:i + batch_size]})[0]
             for i in range(0, block.shape[0], batch_size)]
    return np.concatenate(parts, axis=0)


def _names(model, input_name, output_name):
    probe = _probe(model)
    inputs = [i.name for i in probe.get_inputs()]
    outputs = [o.name for o in probe.get_outputs()]
    if input_name is None:
        if len(inputs) != 1:
            raise ValueError(f"the model has inputs {inputs}: name the one the array feeds (input_name=...)")
        input_name = inputs[0]
    elif input_name not in inputs:
        raise ValueError(f"'{input_name}' is not an input of the model (inputs: {inputs})")
    if output_name is None:
        output_name = outputs[0]
    elif output_name not in outputs:
        raise ValueError(f"'{output_name}' is not an output of the model (outputs: {outputs})")
    return probe, input_name, output_name


def map_blocks(model, array, input_name=None, output_name=None, batch_size=None, threads=1):
    """Runs ``model`` (a path or bytes) on every block of the dask array ``array``, whose first axis is the batch.

    Blocks are split along the first axis only (other axes must be whole: ``array.rechunk({1: -1, ...})``); each
    block runs in pieces of at most ``batch_size`` rows (all at once when None) on its worker's session with
    ``threads`` intra-op threads. The model's output must have the batch as its first axis too. Returns a dask array
    of ``output_name`` (default: the first output), chunked along the first axis like ``array``.
    """
    import dask.array as da

    if any(len(c) != 1 for c in array.chunks[1:]):
        raise ValueError("onyx.dask.map_blocks: split the array along its first axis only (rechunk the others to -1)")
    probe, input_name, output_name = _names(model, input_name, output_name)
    # The output's shape past the batch axis and its dtype, from one row run here.
    sample = np.zeros((1,) + tuple(array.shape[1:]), dtype=array.dtype)
    out = probe.run([output_name], {input_name: sample})[0]
    if out.ndim == 0 or out.shape[0] != 1:
        raise ValueError(f"output '{output_name}' has shape {out.shape} for one row: its first axis is not the batch")
    trailing = out.shape[1:]
    chunks = (array.chunks[0],) + tuple((d,) for d in trailing)

    def run_block(block):
        return _run_batches(_session(model, threads), input_name, output_name, np.ascontiguousarray(block),
                            batch_size)

    drop = list(range(1, array.ndim)) if array.ndim > 1 else []
    new = list(range(1, 1 + len(trailing)))
    if array.ndim - 1 == len(trailing):
        drop, new = [], []
    return da.map_blocks(run_block, array, dtype=out.dtype, chunks=chunks, drop_axis=drop or None,
                         new_axis=new or None, meta=np.empty((0,) * (1 + len(trailing)), dtype=out.dtype))


def map_partitions(model, dataframe, input_columns, output_columns, input_name=None, output_name=None,
                   batch_size=None, threads=1, dtype=np.float32):
    """Runs ``model`` on each partition of the dask dataframe ``dataframe``: the ``input_columns`` become a
    [rows, len(input_columns)] array of ``dtype`` fed to the model's input, the output's columns become
    ``output_columns``. Returns a dask dataframe with the partitions' index."""
    import pandas as pd

    _, input_name, output_name = _names(model, input_name, output_name)
    input_columns = list(input_columns)
    output_columns = list(output_columns)

    def run_partition(part):
        x = np.ascontiguousarray(part[input_columns].to_numpy(dtype=dtype))
        if x.shape[0] == 0:
            return pd.DataFrame({c: np.empty(0, dtype=np.float32) for c in output_columns}, index=part.index)
        y = _run_batches(_session(model, threads), input_name, output_name, x, batch_size)
        y = y.reshape(y.shape[0], -1)
        if y.shape[1] != len(output_columns):
            raise ValueError(f"output '{output_name}' has {y.shape[1]} columns, output_columns names "
                             f"{len(output_columns)}")
        return pd.DataFrame(y, columns=output_columns, index=part.index)

    meta = pd.DataFrame({c: np.empty(0, dtype=np.float32) for c in output_columns})
    return dataframe.map_partitions(run_partition, meta=meta)
