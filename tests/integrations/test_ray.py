"""Ray scoring: a local Ray instance started in the test (2 CPUs), scores equal to Scorer.score,
the `sitar score --engine ray` CLI with sharded output and a manifest, and (slow) a two-node
cluster started with `ray start` on loopback."""

from __future__ import annotations

import json
import os
import random
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("onnxruntime")
pytest.importorskip("tokenizers")
ray = pytest.importorskip("ray", reason="Ray is not installed (pip install 'sitar[ray]')")
pytest.importorskip("ray.data")
pq = pytest.importorskip("pyarrow.parquet")

from sitar.errors import InputError  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
TINY = ROOT / "tests" / "fixtures" / "tiny_onnx"


@pytest.fixture(scope="module")
def local_ray(tmp_path_factory):
    if ray.is_initialized():
        ray.shutdown()
    # Workers import sitar from this checkout, like the test process (restored afterwards, so
    # later tests in the session do not inherit it).
    old_pythonpath = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = os.pathsep.join(
        [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]
    )
    # Ray gives its raylet a fixed 30 s to register; on a starved machine that can pass, so try
    # again once before failing.
    for attempt in range(2):
        try:
            ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
            break
        except Exception as e:
            ray.shutdown()
            if attempt or "timed out during startup" not in str(e):
                raise
    ctx = ray.data.DataContext.get_current()
    ctx.enable_progress_bars = False
    yield ray
    ray.shutdown()
    if old_pythonpath is None:
        os.environ.pop("PYTHONPATH", None)
    else:
        os.environ["PYTHONPATH"] = old_pythonpath


@pytest.fixture(scope="module")
def scorer():
    from sitar.scorer import Scorer

    return Scorer.load(TINY, variant="fp32")


def pairs(n=30, seed=5):
    rng = random.Random(seed)
    words = "the a cat dog sat on mat call send invoice friday monday doctor table".split()
    refs = [" ".join(rng.choices(words, k=rng.randint(1, 18))) for _ in range(n)]
    hyps = [" ".join(rng.choices(words, k=rng.randint(1, 18))) for _ in range(n)]
    refs[3] = hyps[3] = "the same words"
    refs[4] = ""  # an empty reference is a valid pair
    ids = [f"u{i:03d}" for i in range(n)]
    return ids, refs, hyps


def test_score_dataset_equals_scorer(local_ray, scorer):
    from sitar.integrations.ray import dataset_from_pairs, score_dataset

    ids, refs, hyps = pairs()
    ds = dataset_from_pairs(ids, refs, hyps, rows_per_block=8)
    scored = score_dataset(
        ds, checkpoint=str(TINY), variant="fp32", num_actors=2, rows_per_batch=7, batch_size=4
    )
    assert scored.signature == scorer.signature
    df = scored.dataset.to_pandas().set_index("id").loc[ids]
    want = scorer.score(references=refs, hypotheses=hyps)
    alone = [
        scorer.score(references=[r], hypotheses=[h]).scores[0]
        for r, h in zip(refs, hyps, strict=True)
    ]
    np.testing.assert_allclose(df["score"].to_numpy(), want.scores, atol=1e-6)
    np.testing.assert_allclose(df["score"].to_numpy(), alone, atol=1e-6)
    np.testing.assert_allclose(df["raw"].to_numpy(), want.raw, atol=1e-6)
    assert df["identical"].tolist() == list(want.identical)
    assert df["n_windows"].tolist() == list(want.n_windows)
    assert set(df["signature"]) == {scorer.signature}
    assert df["reference"].tolist() == refs  # input columns are kept


def test_explain_column(local_ray, scorer):
    from sitar.integrations.ray import score_dataset

    ds = ray.data.from_items(
        [{"ref": "please send the invoice on friday", "hyp": "please send an invoice on monday"}]
    )
    scored = score_dataset(
        ds,
        checkpoint=str(TINY),
        variant="fp32",
        num_actors=1,
        reference_column="ref",
        hypothesis_column="hyp",
        explain=True,
    )
    (row,) = scored.dataset.take_all()
    got = json.loads(row["explanation"])
    want = scorer.explain(row["ref"], row["hyp"]).to_dict()
    assert got["n_gaps"] == want["n_gaps"] >= 1
    assert got["score"] == pytest.approx(want["score"], abs=1e-6)
    assert [g["tier"] for g in got["gaps"]] == [g["tier"] for g in want["gaps"]]


def test_bad_datasets(local_ray):
    from sitar.integrations.ray import score_dataset

    ds = ray.data.from_items([{"reference": "a", "hyp": "b"}])
    with pytest.raises(InputError, match=r"no column\(s\) 'hypothesis'"):
        score_dataset(ds, checkpoint=str(TINY))
    ds = ray.data.from_items([{"reference": "a", "hypothesis": "b", "score": 1.0}])
    with pytest.raises(InputError, match="already has column"):
        score_dataset(ds, checkpoint=str(TINY))
    with pytest.raises(InputError, match="num_actors must be a positive integer"):
        score_dataset(ds, checkpoint=str(TINY), num_actors=0)
    with pytest.raises(InputError, match="ray.data.Dataset"):
        score_dataset([{"reference": "a", "hypothesis": "b"}], checkpoint=str(TINY))


def _write_jsonl(path, ids, refs, hyps):
    with open(path, "w", encoding="utf-8") as f:
        for i, r, h in zip(ids, refs, hyps, strict=True):
            f.write(json.dumps({"id": i, "reference": r, "hypothesis": h}) + "\n")


def _read_shards(out: Path, fmt: str):
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    rows = []
    for shard in manifest["shards"]:
        path = out / shard["path"]
        if fmt == "parquet":
            part = pq.read_table(path).to_pylist()
        else:
            part = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
        assert len(part) == shard["rows"]
        rows.extend(part)
    return manifest, rows


def _local_cli_scores(jsonl):
    """`sitar score --jsonl-out` (the single-process path) in a fresh process."""
    proc = subprocess.run(
        [sys.executable, "-m", "sitar", "score", "--jsonl", str(jsonl), "--checkpoint", str(TINY),
         "--variant", "fp32", "--jsonl-out"],
        capture_output=True, text=True, check=True, cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    lines = [json.loads(line) for line in proc.stdout.splitlines()]
    return {r["id"]: r for r in lines[:-1]}, lines[-1]


def _check_output(out, fmt, ids, jsonl, scorer, local=None):
    manifest, rows = _read_shards(out, fmt)
    assert [r["id"] for r in rows] == ids  # input order, nothing lost or duplicated
    local, system = local or _local_cli_scores(jsonl)
    for r in rows:
        assert r["score"] == pytest.approx(local[r["id"]]["score"], abs=1e-6)
        assert r["raw"] == pytest.approx(local[r["id"]]["raw"], abs=1e-6)
        assert r["identical"] == local[r["id"]]["identical"]
        assert r["signature"] == scorer.signature
    assert manifest["signature"] == system["signature"] == scorer.signature
    assert manifest["n_pairs"] == len(ids) and manifest["shard_format"] == fmt
    assert manifest["system_score"] == pytest.approx(system["system"], abs=1e-6)
    assert manifest["made_by"]["num_actors"] == 2 and manifest["made_by"]["ray"] == ray.__version__
    return manifest, rows


def test_cli_engine_ray_parquet_through_address(local_ray, tmp_path, scorer):
    """`sitar score --engine ray --address <this cluster>` from another process writes Parquet
    shards whose scores equal `sitar score` on the same file, and a manifest describing them."""
    ids, refs, hyps = pairs(25, seed=11)
    jsonl = tmp_path / "pairs.jsonl"
    _write_jsonl(jsonl, ids, refs, hyps)
    out = tmp_path / "out"
    address = ray.get_runtime_context().gcs_address
    proc = subprocess.run(
        [sys.executable, "-m", "sitar", "score", "--engine", "ray", "--address", address,
         "--num-actors", "2", "--jsonl", str(jsonl), "--checkpoint", str(TINY), "--variant",
         "fp32", "--output-dir", str(out)],
        capture_output=True, text=True, cwd=ROOT, timeout=300,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    manifest, _ = _check_output(out, "parquet", ids, jsonl, scorer)
    assert manifest["made_by"]["address"] == address
    assert f"#manifest\t{out / 'manifest.json'}" in proc.stdout


def test_cli_engine_ray_jsonl_in_process(local_ray, tmp_path, scorer, capsys):
    """The same in this process (an initialised Ray is reused), with JSONL shards whose floats
    are written exactly (shortest repr), not rounded to 10 digits as pandas' to_json does."""
    from sitar.cli import main

    ids, refs, hyps = pairs(12, seed=12)
    jsonl = tmp_path / "pairs.jsonl"
    _write_jsonl(jsonl, ids, refs, hyps)
    out = tmp_path / "out"
    argv = ["score", "--engine", "ray", "--jsonl", str(jsonl), "--checkpoint", str(TINY)]
    argv += ["--variant", "fp32", "--output-dir", str(out), "--shard-format", "jsonl"]
    assert main(argv) == 0
    local_argv = ["score", "--jsonl", str(jsonl), "--checkpoint", str(TINY), "--variant", "fp32"]
    capsys.readouterr()
    assert main([*local_argv, "--jsonl-out"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    local = ({r["id"]: r for r in lines[:-1]}, lines[-1])
    _, rows = _check_output(out, "jsonl", ids, jsonl, scorer, local)
    want = scorer.score(references=refs, hypotheses=hyps)
    np.testing.assert_allclose([r["score"] for r in rows], want.scores, atol=1e-6)
    digits = [len(repr(r["score"]).split(".")[1]) for r in rows if not r["identical"]]
    assert max(digits) > 10


def test_cli_engine_ray_passes_the_gap_head_options(local_ray, tmp_path, capsys):
    """--head / --tie-breaker / --decode reach every actor's Scorer.load (they used to be
    dropped silently): refused for a pair-head checkpoint, named in the signature and the
    manifest for the gap-head default."""
    from sitar.cli import main

    base = ["score", "--engine", "ray", "--ref", "turn left now", "--hyp", "turn right now"]
    argv = [*base, "--checkpoint", str(TINY), "--output-dir", str(tmp_path / "tiny")]
    assert main([*argv, "--tie-breaker", "2"]) == 2
    assert "gap head" in capsys.readouterr().err
    assert main([*argv, "--decode", "median"]) == 2
    assert "gap head" in capsys.readouterr().err
    out = tmp_path / "median"
    argv = [*base, "--num-actors", "1", "--output-dir", str(out), "--decode", "median"]
    assert main(argv) == 0
    manifest = json.loads((out / "manifest.json").read_text())
    assert "|dec:median|" in manifest["signature"]
    scorer = manifest["made_by"]["scorer"]  # every ScorerOptions field, as sitar.options names it
    assert scorer["decode"] == "median" and scorer["tie_breaker"] is None
    assert scorer["threads"] == 1 and scorer["backend"] == "onnx"


def test_score_dataset_with_candidate_lists_keeps_the_closest(local_ray, scorer):
    """A list column of references: each row keeps its closest candidate (sitar.multiref), the
    same pairs and choices as score_multi in one process, with reference_index (1-based)."""
    from sitar.integrations.ray import dataset_from_pairs, score_dataset
    from sitar.multiref import score_multi

    ids, refs, hyps = pairs(12, seed=7)
    candidates = [[r, h] if i % 3 else [r] for i, (r, h) in enumerate(zip(refs, hyps, strict=True))]
    ds = dataset_from_pairs(ids, candidates, hyps, rows_per_block=4)
    scored = score_dataset(ds, checkpoint=str(TINY), variant="fp32", rows_per_batch=3)
    by_id = {row["id"]: row for row in scored.dataset.take_all()}
    rows = [by_id[u] for u in ids]
    want = score_multi(scorer, references=candidates, hypotheses=hyps)
    assert [r["reference_index"] for r in rows] == [j + 1 for j in want.chosen]
    assert {r["reference_index"] for r in rows} == {1, 2}
    np.testing.assert_allclose([r["score"] for r in rows], want.result.scores, atol=1e-6)
    assert [list(r["reference"]) for r in rows] == candidates  # the input column is kept


def test_cli_engine_ray_with_two_reference_files(local_ray, tmp_path, scorer, capsys):
    """`--ref-file R1 --ref-file R2 --engine ray`: the shards and manifest of the local
    `sitar score` with the same references (scores, chosen reference, system score)."""
    from sitar.cli import main

    ids, refs, hyps = pairs(10, seed=9)
    other = [h if i % 2 else r for i, (r, h) in enumerate(zip(refs, hyps, strict=True))]
    files = {}
    for name, lines in (("r1", refs), ("r2", other), ("h", hyps)):
        files[name] = tmp_path / f"{name}.kaldi"
        files[name].write_text("".join(f"{u} {t}\n" for u, t in zip(ids, lines, strict=True)))
    inputs = ["--ref-file", str(files["r1"]), "--ref-file", str(files["r2"])]
    inputs += ["--hyp-file", str(files["h"]), "--format", "kaldi"]
    model = ["--checkpoint", str(TINY), "--variant", "fp32"]
    out = tmp_path / "out"
    argv = ["score", *inputs, *model, "--engine", "ray", "--output-dir", str(out)]
    assert main([*argv, "--shard-format", "jsonl"]) == 0
    capsys.readouterr()
    assert main(["score", *inputs, *model, "--jsonl-out"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    manifest, rows = _check_output(
        out, "jsonl", ids, None, scorer, ({r["id"]: r for r in lines[:-1]}, lines[-1])
    )
    assert [r["reference_index"] for r in rows] == [r["reference_index"] for r in lines[:-1]]
    assert {r["reference_index"] for r in rows} == {1, 2}
    assert manifest["columns"][-1] == "reference_index"
    # a JSONL 'reference' list is the same input
    jsonl = tmp_path / "lists.jsonl"
    jsonl.write_text(
        "".join(
            json.dumps({"id": u, "reference": [a, b], "hypothesis": h}) + "\n"
            for u, a, b, h in zip(ids, refs, other, hyps, strict=True)
        )
    )
    out2 = tmp_path / "out2"
    argv = ["score", "--jsonl", str(jsonl), *model, "--engine", "ray", "--output-dir", str(out2)]
    assert main(argv) == 0
    _, again = _read_shards(out2, "parquet")
    assert [(r["score"], r["reference_index"]) for r in again] == [
        (r["score"], r["reference_index"]) for r in rows
    ]


def test_cli_engine_ray_refuses_several_systems(tmp_path, capsys):
    from sitar.cli import main

    ref = tmp_path / "r.txt"
    ref.write_text("turn left\n")
    argv = ["score", "--ref-file", str(ref), "--system", f"A={ref}", "--system", f"B={ref}"]
    assert main([*argv, "--engine", "ray", "--output-dir", str(tmp_path / "o")]) == 2
    assert "--system cannot be combined with --engine ray" in capsys.readouterr().err


def test_cli_engine_ray_option_errors(tmp_path, capsys):
    from sitar.cli import main

    base = ["score", "--ref", "a", "--hyp", "b", "--checkpoint", str(TINY)]

    def err(argv):
        assert main(argv) == 2
        return capsys.readouterr().err

    assert "give --output-dir DIR" in err([*base, "--engine", "ray"])
    msg = err([*base, "--engine", "ray", "--output-dir", str(tmp_path / "o"), "--jsonl-out"])
    assert "cannot be combined with --jsonl-out" in msg
    assert "--output-dir only apply with --engine ray" in err([*base, "--output-dir", "x"])
    out = str(tmp_path / "t")
    assert "disagree" in err([*base, "--engine", "ray", "--output-dir", out, "--threads", "2",
                              "--threads-per-actor", "3"])  # fmt: skip
    full = tmp_path / "full"
    full.mkdir()
    (full / "old.parquet").write_text("x")
    assert "not an empty folder" in err([*base, "--engine", "ray", "--output-dir", str(full)])


# -- a real two-node cluster on loopback (slow) ----------------------------------------------------


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.slow
def test_two_node_cluster_with_ray_start(tmp_path):
    """A head and a second worker node started with `ray start --block` on 127.0.0.1 (their own
    processes, stopped by pid); `sitar score --engine ray --address` scores through them with one
    actor on each node."""
    ray_bin = Path(sys.executable).parent / "ray"
    if not ray_bin.exists():
        pytest.skip("the `ray` command is not installed next to this Python")
    port = _free_port()
    # A short session folder: Ray's Unix sockets live under it, and a socket path longer than
    # 107 bytes (pytest's tmp_path is often that long) makes the nodes fail to start.
    temp_dir = tempfile.mkdtemp(prefix="sitar-ray-", dir="/tmp")
    # Ray >= 2.59 starts local clusters with token authentication; every node and every client
    # must share the mode and the token, or the second node and the driver are refused.
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "RAY_AUTH_MODE": "token",
        "RAY_AUTH_TOKEN": secrets.token_hex(16),
    }
    common = ["--block", "--num-cpus", "1", "--disable-usage-stats"]
    head = subprocess.Popen(
        [str(ray_bin), "start", "--head", "--node-ip-address", "127.0.0.1", "--port", str(port),
         "--include-dashboard", "false", "--temp-dir", temp_dir, *common],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env,
    )  # fmt: skip
    worker = None
    try:
        address = f"127.0.0.1:{port}"
        time.sleep(8)
        worker = subprocess.Popen(
            [str(ray_bin), "start", "--address", address, "--node-ip-address", "127.0.0.1", *common],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env,
        )  # fmt: skip
        probe = (
            "import ray, time, sys; ray.init(address=sys.argv[1], log_to_driver=False);"
            "t=time.time()\n"
            "while len([n for n in ray.nodes() if n['Alive']]) < 2 and time.time()-t < 60:"
            " time.sleep(0.5)\n"
            "print(len([n for n in ray.nodes() if n['Alive']]))"
        )
        nodes = subprocess.run(
            [sys.executable, "-c", probe, address], capture_output=True, text=True, env=env,
            timeout=120,
        )  # fmt: skip
        assert nodes.stdout.strip().endswith("2"), nodes.stderr[-2000:]
        ids, refs, hyps = pairs(20, seed=2)
        jsonl = tmp_path / "pairs.jsonl"
        _write_jsonl(jsonl, ids, refs, hyps)
        out = tmp_path / "out"
        proc = subprocess.run(
            [sys.executable, "-m", "sitar", "score", "--engine", "ray", "--address", address,
             "--num-actors", "2", "--jsonl", str(jsonl), "--checkpoint", str(TINY), "--variant",
             "fp32", "--output-dir", str(out)],
            capture_output=True, text=True, cwd=ROOT, timeout=600, env=env,
        )  # fmt: skip
        assert proc.returncode == 0, proc.stderr[-3000:]
        _, rows = _read_shards(out, "parquet")
        local, _ = _local_cli_scores(jsonl)
        assert [r["id"] for r in rows] == ids
        for r in rows:
            assert r["score"] == pytest.approx(local[r["id"]]["score"], abs=1e-6)
    finally:
        for p in (worker, head):
            if p is not None and p.poll() is None:
                p.terminate()
                try:
                    p.wait(60)
                except subprocess.TimeoutExpired:
                    p.kill()
        shutil.rmtree(temp_dir, ignore_errors=True)
