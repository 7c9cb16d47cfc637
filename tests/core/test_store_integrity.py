"""The run store never lies: a damaged or foreign chunk is reported on one line and computed
again, never merged; the store has a documented home; a search's stages and a report's batches
live inside their run's folder; ``simcards runs list`` and ``runs clean`` show and remove runs."""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path

import pytest

from simcards.core.cli import main
from simcards.core.store import default_root, store_root

GAMES_ARGS = ["ronco", "games", "--players", "4", "--lives", "3", "--seed", "7", "--json",
              "--workers", "1", "--games", "100000"]  # 4 chunks of 32,768 games


def _run(capsys, args: list[str]) -> tuple[int, str, str]:
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def _chunks(store: Path) -> list[Path]:
    return sorted(store.glob("*/chunks/*.parquet"))


@pytest.fixture
def stored(tmp_path, capsys) -> tuple[Path, dict]:
    """A finished games run in a fresh store, and its answer."""
    store = tmp_path / "store"
    code, out, _ = _run(capsys, [*GAMES_ARGS, "--store", str(store)])
    assert code == 0
    assert len(_chunks(store)) == 4
    return store, json.loads(out)


def _rerun(capsys, store: Path) -> tuple[dict, list[str], dict]:
    for manifest in store.glob("*/manifest.json"):  # make the run resumable again
        m = json.loads(manifest.read_text())
        manifest.write_text(json.dumps({**m, "status": "running"}))
    code, out, err = _run(capsys, [*GAMES_ARGS, "--store", str(store)])
    assert code == 0, err
    (manifest,) = store.glob("*/manifest.json")
    m = json.loads(manifest.read_text())
    lines = err.strip().splitlines()
    # The run then says how many finished chunks it resumed; what is left is about the damage.
    resumed = [line for line in lines if line.startswith("resumed ")]
    assert resumed == [f"resumed {m['chunks_resumed']} finished chunks from {manifest.parent}"]
    return json.loads(out), [line for line in lines if line not in resumed], m


@pytest.mark.parametrize("damage", ["truncated", "emptied", "garbage"])
def test_a_damaged_chunk_is_reported_on_one_line_and_computed_again(stored, capsys,
                                                                    damage) -> None:
    store, answer = stored
    victim = _chunks(store)[1]
    data = victim.read_bytes()
    victim.write_bytes({"truncated": data[: len(data) // 2], "emptied": b"",
                        "garbage": b"x" * len(data)}[damage])
    again, err, manifest = _rerun(capsys, store)
    assert again == answer
    assert len(err) == 1 and victim.name in err[0] and "damaged or foreign" in err[0], err
    assert (manifest["chunks_resumed"], manifest["chunks_computed"]) == (3, 1)


def test_a_chunk_copied_over_another_is_refused_not_merged(stored, capsys) -> None:
    store, answer = stored
    first, second = _chunks(store)[:2]
    shutil.copyfile(first, second)
    again, err, manifest = _rerun(capsys, store)
    assert again == answer
    assert len(err) == 1 and second.name in err[0] and "is chunk 0/0, not 0/1" in err[0], err
    assert manifest["chunks_computed"] == 1


def test_a_chunk_of_another_run_is_refused_not_merged(stored, capsys, tmp_path) -> None:
    store, answer = stored
    other = tmp_path / "other"
    code, _, _ = _run(capsys, [*GAMES_ARGS[:-1], "100001", "--store", str(other)])
    assert code == 0
    shutil.copyfile(_chunks(other)[2], _chunks(store)[2])
    again, err, _ = _rerun(capsys, store)
    assert again == answer
    assert len(err) == 1 and "belongs to run" in err[0], err


def test_a_chunk_whose_numbers_were_edited_fails_its_checksum(stored, capsys) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    store, answer = stored
    victim = _chunks(store)[3]
    table = pq.read_table(victim)
    ints = table.column("int_values").to_pylist()
    ints[0] = [v + 1 for v in ints[0]]
    table = table.set_column(table.schema.get_field_index("int_values"), "int_values",
                             pa.array(ints, pa.list_(pa.int64())))
    pq.write_table(table, victim)  # the metadata (with the old checksum) travels along
    again, err, _ = _rerun(capsys, store)
    assert again == answer
    assert len(err) == 1 and "checksum mismatch" in err[0], err


def test_the_store_lives_in_the_users_data_folder_not_the_current_one(monkeypatch,
                                                                     tmp_path) -> None:
    monkeypatch.delenv("SIMCARDS_STORE", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert store_root(None) == tmp_path / "xdg" / "simcards" / "runs"
    monkeypatch.delenv("XDG_DATA_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert default_root() == tmp_path / "home" / ".local" / "share" / "simcards" / "runs"
    monkeypatch.setenv("SIMCARDS_STORE", str(tmp_path / "mine"))
    assert store_root(None) == tmp_path / "mine"
    assert store_root("none") is None


def test_a_search_keeps_its_stages_inside_its_own_folder(tmp_path, capsys) -> None:
    store = tmp_path / "store"
    code, _, err = _run(capsys, ["ronco", "best-threshold", "--players", "3", "--lives", "2",
                                 "--first-stage", "1024", "--max-games", "2048",
                                 "--min-games", "1024", "--max-iterations", "1",
                                 "--gain-games", "0", "--workers", "1", "--json",
                                 "--store", str(store)])
    assert code == 0, err
    (run,) = list(store.iterdir())
    assert run.name.startswith("ronco-best-threshold-")
    stages = list((run / "stages").iterdir())
    assert stages and all(s.name.startswith("ronco-race-stage-") for s in stages)
    assert json.loads((run / "manifest.json").read_text())["status"] == "complete"


def test_runs_list_shows_each_run_and_runs_clean_removes_what_is_asked(tmp_path,
                                                                      capsys) -> None:
    store = tmp_path / "store"
    args = ["--store", str(store)]
    assert main(["ronco", "rounds", "--players", "3", "--rounds", "10000", "--workers", "1",
                 "--json", *args]) == 0
    assert main(["ronco", "games", "--players", "3", "--lives", "2", "--games", "2000",
                 "--workers", "1", "--json", *args]) == 0
    capsys.readouterr()
    code, out, _ = _run(capsys, ["runs", "list", *args])
    assert code == 0
    lines = out.strip().splitlines()
    assert lines[0].split() == ["name", "game", "command", "status", "players", "policies",
                                "counts", "chunks", "size", "age"]
    rows = [line.split() for line in lines[1:-1]]
    assert sorted(r[2] for r in rows) == ["games", "rounds"]
    assert all(r[1] == "ronco" and r[3] == "complete" and r[8] == "1" for r in rows)
    assert lines[-1].startswith("2 runs,")

    old = next(store.glob("ronco-rounds-*"))
    past = time.time() - 10 * 86400
    for f in old.rglob("*"):
        os.utime(f, (past, past))
    code, out, _ = _run(capsys, ["runs", "clean", "--older-than", "7d", *args])
    assert code == 0 and f"removed {old.name}" in out and "removed 1 run, freed" in out
    assert not old.exists()

    code, _, err = _run(capsys, ["runs", "clean", *args])
    assert code == 2 and "--older-than" in err  # says what to give rather than guess

    code, out, _ = _run(capsys, ["runs", "clean", "--command", "rounds", *args])
    assert "removed 0 runs" in out
    code, out, _ = _run(capsys, ["runs", "clean", "--all", *args])
    assert "removed 1 run, freed" in out and list(store.iterdir()) == []
    code, out, _ = _run(capsys, ["runs", "list", *args])
    assert out.startswith("no runs in")


def test_runs_list_tells_runs_of_one_command_apart_and_runs_show_prints_one(tmp_path,
                                                                          capsys) -> None:
    """``runs list`` shows each run's players, policies and counts (two runs of one command
    used to look alike); ``runs show RUN`` prints its manifest and its result."""
    store = tmp_path / "store"
    args = ["--store", str(store), "--workers", "1", "--json"]
    assert main(["ronco", "rounds", "--players", "3", "--rounds", "10000", *args]) == 0
    assert main(["ronco", "rounds", "--players", "4", "--policies", "threshold:6:4",
                 "--rounds", "20000", *args]) == 0
    capsys.readouterr()
    code, out, _ = _run(capsys, ["runs", "list", "--store", str(store)])
    assert code == 0
    lines = out.strip().splitlines()
    assert lines[0].split()[4:7] == ["players", "policies", "counts"]
    assert any(x.split()[4:8] == ["3", "threshold:5:5", "10k", "rounds"] for x in lines)
    assert any(x.split()[4:8] == ["4", "threshold:6:4", "20k", "rounds"] for x in lines)

    run = next(p for p in store.iterdir()
               if json.loads((p / "manifest.json").read_text())["players"] == 4)
    code, out, _ = _run(capsys, ["runs", "show", run.name, "--store", str(store)])
    assert code == 0
    assert out.startswith(f"run {run.name} (complete, 1 chunk, ")
    assert '"policies": [' in out and '"rounds": 20000' in out
    assert "result (4 rows):" in out and "p_lose" in out
    code, out, _ = _run(capsys, ["runs", "show", run.name[:20], "--json", "--store",
                                 str(store)])
    shown = json.loads(out)
    assert shown["manifest"]["policies"] == ["threshold:6:4"] * 4
    assert [r["position"] for r in shown["result"]] == [0, 1, 2, 3]

    code, _, err = _run(capsys, ["runs", "show", "ronco-rounds", "--store", str(store)])
    assert code == 2 and "names 2 runs" in err
    code, _, err = _run(capsys, ["runs", "show", "nothing-like-it", "--store", str(store)])
    assert code == 2 and "no run 'nothing-like-it'" in err and "runs list" in err


def test_report_keeps_its_chunks_and_resumes_after_an_interruption(
        tmp_path, capsys, interrupt_after_chunks) -> None:
    from simcards.core.store import RunStore

    store = tmp_path / "store"
    args = ["report", "--only", "ronco-rounds", "--quick", "--workers", "1", "--out",
            str(tmp_path / "reports"), "--store", str(store)]
    interrupt_after_chunks(20)
    code, _, err = _run(capsys, args)
    assert code == 130
    assert err.strip().splitlines()[-1].startswith(
        "simcards: error: interrupted during study ronco-rounds; finished chunks kept in")
    kept = {p.name for p in store.glob("**/chunks/*.parquet")}
    assert len(kept) == 20

    interrupt_after_chunks(None)
    computed: list = []
    real = RunStore.save_chunk

    def counting(self, key, stats, *rest):
        computed.append(key)
        real(self, key, stats, *rest)

    RunStore.save_chunk = counting
    try:
        code, _, err = _run(capsys, args)
    finally:
        RunStore.save_chunk = real
    assert code == 0, err
    assert "report 1/1: ronco-rounds" in err
    total = len(list(store.glob("**/chunks/*.parquet")))
    assert len(computed) == total - 20  # only the missing chunks were computed
    (run,) = list(store.iterdir())
    assert run.name.startswith("ronco-report-")
    assert json.loads((run / "manifest.json").read_text())["status"] == "complete"
