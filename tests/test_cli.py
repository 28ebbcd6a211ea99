"""Tests of the ``natcomp`` command line (natcomp.cli): dispatch, ``--version``, ``python -m natcomp``, packaging.

The commands themselves are tested with their families (tests/mt/test_cli.py for ``natcomp mt score`` and
``natcomp mt sources``, tests/<family>/ for the others); every bad input in tests/test_bad_inputs.py.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

import natcomp
from natcomp import cli, cliargs
from natcomp.cli import main
from natcomp.cli_reference import sub_commands, walk

RESOURCES = Path(__file__).resolve().parents[1] / "resources"


def test_version_is_the_installed_distributions(capsys):
    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0
    assert capsys.readouterr().out == f"natcomp {metadata.version('natcomp')}\n"
    assert metadata.version("natcomp") == natcomp.__version__  # pyproject and the package agree


def test_version_falls_back_to_the_package_attribute(monkeypatch, capsys):
    def not_installed(name):
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(metadata, "version", not_installed)
    monkeypatch.setattr(natcomp, "__version__", "9.8.7")
    assert cli.version() == "9.8.7"
    with pytest.raises(SystemExit):
        main(["--version"])
    assert capsys.readouterr().out == "natcomp 9.8.7\n"


def test_every_family_is_a_group_with_its_commands():
    """natcomp <family> <verb>; beside the groups only the cross-family evaluate and compare."""
    tree = {path: parser for path, parser in walk(cli.build_parser())}
    assert {path for path in tree if len(path) == 1} == {
        ("mt",),
        ("noncompsst",),
        ("plane",),
        ("pss",),
        ("tre",),
        ("evaluate",),
        ("compare",),
    }
    assert {path[1] for path in tree if len(path) == 2 and path[0] == "mt"} == {
        "score",
        "sources",
        "fragments",
        "evaluate",
    }


def test_every_model_option_names_the_shipped_models():
    """A command that takes a model says in its --help which models come with natcomp, by id."""
    from natcomp.shipped import SHIPPED_MODELS

    model_options = {}
    for path, parser in walk(cli.build_parser()):
        for action in parser._actions:
            if "--model" in action.option_strings:
                model_options[" ".join(path)] = action.help
    assert set(model_options) == {"evaluate", "mt evaluate"}
    for command, help_text in model_options.items():
        assert all(name in help_text for name in SHIPPED_MODELS), command
        assert "save_pretrained folder" in help_text and "Hugging Face cache" in help_text, command


def test_every_command_and_option_has_a_one_line_help_in_plain_text():
    """Walks the whole parser tree: a command without a help line in its group's list or without a
    description in its own --help, or an option (other than -h) without a help text, fails."""
    missing = []
    for path, parser in walk(cli.build_parser()):
        name = " ".join(("natcomp", *path))
        if not (parser.description or "").strip():
            missing.append(f"{name}: no description")
        for command, help_text, _ in sub_commands(parser):
            if not (help_text or "").strip() or "\n" in help_text:
                missing.append(f"{name} {command}: no one-line help in the command list")
        for action in parser._actions:
            if isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)):
                continue
            if action.help is None or (action.help != argparse.SUPPRESS and not action.help.strip()):
                missing.append(f"{name} {'/'.join(action.option_strings) or action.dest}: no help")
        texts = [parser.description or "", *(a.help or "" for a in parser._actions)]
        if any("``" in text for text in texts):
            missing.append(f"{name}: raw double backticks in its help (help is plain text)")
    assert missing == []


def test_the_walk_finds_a_command_or_option_without_help():
    """The check above can fail: a command and an option without help are found."""
    parser = cli.build_parser()
    family = next(sub for name, _, sub in sub_commands(parser) if name == "pss")
    commands = next(a for a in family._actions if isinstance(a, argparse._SubParsersAction))
    bare = commands.add_parser("bare")
    bare.add_argument("--flag")
    found = [(path, p) for path, p in walk(parser) if path == ("pss", "bare")]
    assert len(found) == 1 and not found[0][1].description
    assert found[0][1]._actions[-1].help is None


def test_old_top_level_mt_commands_still_work_with_a_one_line_notice(tmp_path, capsys):
    trees = tmp_path / "bank.txt"
    trees.write_text("(S (NP (D the) (N cat)) (VP (V saw) (NP (D the) (N dog))))\n" * 2, encoding="utf-8")
    assert main(["fragments", str(trees), "--output", str(tmp_path / "old.txt")]) == 0
    err = capsys.readouterr().err.splitlines()
    assert err[0] == "natcomp: 'natcomp fragments' is now 'natcomp mt fragments'; the old name goes after natcomp 0.2"
    assert main(["mt", "fragments", str(trees), "--output", str(tmp_path / "new.txt")]) == 0
    assert "is now" not in capsys.readouterr().err
    assert (tmp_path / "old.txt").read_bytes() == (tmp_path / "new.txt").read_bytes()
    for old in ("score", "sources"):
        with pytest.raises(SystemExit):
            main([old, "--help"])
        captured = capsys.readouterr()
        assert (
            captured.err
            == f"natcomp: '{'natcomp'} {old}' is now 'natcomp mt {old}'; the old name goes after natcomp 0.2\n"
        )
        assert f"usage: natcomp mt {old}" in captured.out


def test_an_unknown_error_is_not_hidden(monkeypatch):
    """Only errors on named paths and natcomp's own become the one line; a bug keeps its traceback."""
    from natcomp.pss import cli as pss_cli

    def broken(args):
        raise ZeroDivisionError("a bug")

    monkeypatch.setattr(pss_cli, "_cmd_clean", broken)
    with pytest.raises(ZeroDivisionError):
        main(["pss", "clean", "--pairs", "p.txt", "--out", "o.txt"])


def test_building_the_parser_imports_no_model_library_nor_pandas():
    """Start-up stays fast: `import natcomp.cli` and building the parser import no torch, transformers,
    fairseq, pandas, scipy, matplotlib or nltk (checked in a fresh interpreter)."""
    heavy = ("torch", "transformers", "fairseq", "pandas", "scipy", "matplotlib", "nltk")
    code = (
        "import sys; import natcomp.cli; natcomp.cli.build_parser(); "
        f"print(' '.join(m for m in {heavy!r} if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == ""


def test_python_dash_m_natcomp():
    done = subprocess.run(
        [sys.executable, "-m", "natcomp", "mt", "score", "--help"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert "--translations-format" in done.stdout and "--quoting" in done.stdout
    done = subprocess.run([sys.executable, "-m", "natcomp", "mt", "score"], capture_output=True, text=True, check=False)
    assert done.returncode == 2 and "required" in done.stderr
    done = subprocess.run([sys.executable, "-m", "natcomp", "--version"], capture_output=True, text=True, check=False)
    assert done.returncode == 0 and done.stdout == f"natcomp {metadata.version('natcomp')}\n"


def test_a_built_wheel_carries_the_resources(tmp_path):
    """An installed natcomp finds its word lists: the wheel holds resources/ as package data."""
    import zipfile

    repo = RESOURCES.parent
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            str(repo),
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(tmp_path),
        ],
        check=True,
        capture_output=True,
    )
    (wheel,) = tmp_path.glob("natcomp-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for resource in ("synonyms.tsv", "idioms.tsv", "lexicon/nouns_people.tsv"):
        assert f"natcomp/resources/{resource}" in names, resource


# --------------------------------------------------------------------------------------
# argparse's refusals as natcomp's one line (issue 32 point 7)


def _leaf_commands():
    """The command path of every command that runs (no sub-commands of its own)."""
    return [path for path, parser in walk(cli.build_parser()) if path and not list(sub_commands(parser))]


@pytest.mark.parametrize("path", _leaf_commands(), ids=" ".join)
def test_every_command_refuses_an_unknown_option_in_one_line(path, capsys):
    assert main([*path, "--no-such-option"]) == 2
    err = capsys.readouterr().err
    assert err.splitlines() == [err.strip()] and err.startswith("natcomp: error: "), err
    assert "usage:" not in err


@pytest.mark.parametrize(
    ("argv", "line"),
    [
        (
            ["evaluate", "--model", "m", "--families", "x"],
            "natcomp: error: --families: invalid choice 'x' (choose from mt, noncompsst, plane, pss, tre)",
        ),
        (
            ["mt", "evaluate", "--model", "m", "--precision", "fp8"],
            "natcomp: error: --precision: invalid choice 'fp8' (choose from auto, fp32, fp16, bf16)",
        ),
        (
            ["mt", "nope"],
            "natcomp: error: COMMAND: invalid choice 'nope' (choose from score, sources, fragments, evaluate)",
        ),
        (
            [
                "plane",
                "split",
                "--resource",
                "r",
                "--kind",
                "good",
                "--seed",
                "1",
                "--settings",
                "{'a': 1}",
                "--train",
                "a",
                "--test",
                "b",
            ],
            "natcomp: error: --settings: expected a JSON object, not \"{'a': 1}\" (Expecting property name enclosed "
            "in double quotes)",
        ),  # fmt: skip
        (["evaluate"], "natcomp: error: the following arguments are required: --model"),
    ],
    ids=["choice", "mt-choice", "sub-command", "bad-json", "required"],
)
def test_an_invalid_choice_or_bad_json_is_one_line_with_the_choices(argv, line, capsys):
    assert main(argv) == 2
    assert capsys.readouterr().err == line + "\n"


@pytest.mark.parametrize(
    ("checker", "text", "value", "message"),
    [
        (cliargs.positive_int, "3", 3, None),
        (cliargs.positive_int, "0", None, "expected an integer at least 1, not 0"),
        (cliargs.positive_int, "1.5", None, "expected an integer at least 1, not '1.5'"),
        (cliargs.int_range(1, 10), "11", None, "expected an integer from 1 to 10, not 11"),
        (cliargs.non_negative_float, "0", 0.0, None),
        (cliargs.non_negative_float, "-0.5", None, "expected a number at least 0, not -0.5"),
        (cliargs.non_negative_float, "inf", None, "expected a number at least 0, not inf"),
        (cliargs.positive_float, "0", None, "expected a number above 0, not 0"),
        (cliargs.float_range(0, 100, low_open=True), "100", 100.0, None),
        (cliargs.float_range(0, 100, low_open=True), "nan", None, "expected a number above 0 and at most 100, not nan"),
        (cliargs.json_object, '{"a": 1}', {"a": 1}, None),
        (cliargs.json_object, "[1]", None, "expected a JSON object"),
    ],
)
def test_the_shared_option_checkers(checker, text, value, message):
    if message is None:
        assert checker(text) == value
    else:
        with pytest.raises(argparse.ArgumentTypeError, match=message.replace("(", r"\(").replace(")", r"\)")):
            checker(text)


# --------------------------------------------------------------------------------------
# the progress display of natcomp evaluate (issue 32 point 6)

FIXTURES = Path(__file__).resolve().parent / "fixtures"


def _fed(name: str):
    from natcomp.profile.runconfig import Progress

    progress = Progress()
    lines = (FIXTURES / name).read_text(encoding="utf-8").splitlines(keepends=True)
    for line in lines:
        progress.feed(line)
    return progress, lines


def test_progress_reads_a_real_runs_output():
    """A real run's output (a natcomp evaluate of a tiny encoder): the total from the job
    stats, the jobs done from 'N of M steps', the jobs running from 'rule X:' and 'Finished jobid'."""
    from natcomp.profile.runconfig import Progress

    progress, lines = _fed("snakemake_evaluate_run.log")
    assert (progress.done, progress.total) == (54, 54)
    assert progress.running == {} and progress.failed == []
    partial = Progress()
    # two jobs at once on 2 cores: plane_demo_corpus runs on while noncompsst_demo_release starts and ends
    for line in lines[: next(i for i, line in enumerate(lines) if line.startswith("Finished jobid: 39 "))]:
        partial.feed(line)
    assert (partial.done, partial.total) == (2, 54)
    assert partial.stage == "plane_demo_corpus, noncompsst_demo_release"
    assert partial.line(75) == "2 of 54 jobs done (3%), running plane_demo_corpus, noncompsst_demo_release; 1:15"


def test_progress_names_the_failed_rule_and_its_log():
    progress, _ = _fed("snakemake_failed_run.log")
    assert (progress.done, progress.total) == (1, 4)
    assert progress.failed == [("b", "logs/b.log")]


def _show(tty: bool):
    import io

    from natcomp.profile.runconfig import show_progress

    lines = (FIXTURES / "snakemake_evaluate_run.log").read_text(encoding="utf-8").splitlines(keepends=True)
    ticks = iter(range(0, 10_000, 3))
    log, out = io.StringIO(), io.StringIO()
    progress = show_progress(lines, log, out, "natcomp evaluate", tty=tty, clock=lambda: next(ticks))
    return progress, log.getvalue(), out.getvalue(), "".join(lines)


def test_the_display_off_a_terminal_is_one_line_per_change_of_stage():
    progress, log, out, text = _show(tty=False)
    assert log == text, "the log file holds Snakemake's whole output"
    shown = out.splitlines()
    assert 5 < len(shown) < len(text.splitlines()) / 5
    assert all(line.startswith("natcomp evaluate: ") for line in shown)
    started_last = [line.split("running ")[1].split(";")[0].split(", ")[-1] for line in shown[:-1]]
    assert all(a != b for a, b in zip(started_last, started_last[1:])), "a line only when the stage changes"
    assert started_last[:3] == ["tre_demo_treebank", "plane_demo_corpus", "download"]
    assert shown[-1].startswith("natcomp evaluate: 54 of 54 jobs done (100%); ")


def test_the_display_on_a_terminal_is_one_line_rewritten():
    _, _, out, _ = _show(tty=True)
    assert out.count("\n") == 1 and out.endswith("\n")
    assert out.count("\r") > 50 and "\x1b[K" in out
    assert out.rsplit("\r", 1)[1].startswith("natcomp evaluate: 54 of 54 jobs done (100%); ")


def test_elapsed_time_format():
    from natcomp.profile.runconfig import format_elapsed

    assert [format_elapsed(s) for s in (7, 750, 3723.9)] == ["0:07", "12:30", "1:02:03"]


# --------------------------------------------------------------------------------------
# natcomp evaluate -n writes nothing in the run folder (issue 32 point 6)


def _tree(folder: Path) -> dict[str, float]:
    return {str(path.relative_to(folder)): path.stat().st_mtime_ns for path in folder.rglob("*")}


@pytest.fixture
def mlm_config(tmp_path) -> Path:
    """A masked LM as far as the plan needs it: its config.json."""
    import json

    model = tmp_path / "tiny-mlm"
    model.mkdir()
    (model / "config.json").write_text(
        json.dumps(
            {
                "model_type": "bert",
                "architectures": ["BertForMaskedLM"],
                "vocab_size": 10,
                "hidden_size": 8,
                "num_hidden_layers": 1,
                "num_attention_heads": 1,
                "intermediate_size": 8,
            }
        )  # fmt: skip
    )
    return model


def _planned(monkeypatch) -> list[tuple[list[str], dict, bool]]:
    """Snakemake replaced by a recorder: the command, the config it was given, whether the config file exists."""
    import yaml

    from natcomp.profile import runconfig

    calls = []

    def record(command):
        configfile = Path(command[command.index("--configfile") + 1])
        calls.append((list(command), yaml.safe_load(configfile.read_text()), configfile))
        return 0

    monkeypatch.setattr(runconfig, "run", record)
    return calls


def test_a_dry_run_creates_no_run_folder(tmp_path, monkeypatch, mlm_config, capsys):
    monkeypatch.chdir(tmp_path)
    calls = _planned(monkeypatch)
    before = _tree(tmp_path)
    assert main(["evaluate", "--model", str(mlm_config), "--families", "plane", "-n"]) == 0
    assert _tree(tmp_path) == before and not (tmp_path / "runs").exists()
    command, config, configfile = calls[0]
    assert "--dry-run" in command and "--nolock" in command
    workdir = Path(command[command.index("--directory") + 1])
    assert not workdir.exists() and not configfile.exists(), "the temporary folder is gone"
    assert config["run_name"] == "tiny-mlm" and list(config["plane"]["prompting"]["models"]) == ["tiny-mlm"]
    assert "a new run folder runs/tiny-mlm (not created by a dry run)" in capsys.readouterr().err


def test_a_dry_run_in_an_existing_run_folder_changes_nothing_there(tmp_path, monkeypatch, mlm_config, capsys):
    monkeypatch.chdir(tmp_path)
    run = tmp_path / "runs" / "mine"
    (run / "results").mkdir(parents=True)
    (run / "natcomp_evaluate.yaml").write_text("# an earlier run's config\n")
    before = _tree(tmp_path)
    calls = _planned(monkeypatch)
    assert main(["evaluate", "--model", str(mlm_config), "--name", "mine", "--families", "plane", "-n"]) == 0
    assert _tree(tmp_path) == before
    command, config, configfile = calls[0]
    assert Path(command[command.index("--directory") + 1]) == Path("runs/mine"), "what remains to be done there"
    assert run not in configfile.parents and config["run_name"] == "mine"
    assert "what remains to be done in runs/mine (nothing written there)" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("option", "value", "allowed"),
    [
        ("--cores", "0", "an integer from 1 to 4096"),
        ("--cores", "-4", "an integer from 1 to 4096"),
        ("--beam", "0", "an integer from 1 to 256"),
        ("--max-new-tokens", "0", "an integer from 1 to 32768"),
        ("--max-len-a", "-1", "a number from 0 to 100"),
        ("--max-len-b", "-1", "an integer from 0 to 32768"),
        ("--batch-size", "0", "an integer from 1 to 4096"),
        ("--batch-size", "99999999999999999999", "an integer from 1 to 4096"),
        ("--name", "", "must be letters, digits"),
    ],
)
def test_mt_evaluate_checks_every_option_before_the_plan(tmp_path, monkeypatch, capsys, option, value, allowed):
    """Before: --beam 0 printed the plan, wrote runs/b0/ and failed in Snakemake naming mt.systems.b0.beam."""
    monkeypatch.chdir(tmp_path)
    calls = _planned(monkeypatch)
    assert main(["mt", "evaluate", "--model", "some/model", "--name", "b0", option, value]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"natcomp: error: {option}: ") and allowed in err and len(err.splitlines()) == 1, err
    assert calls == [] and list(tmp_path.iterdir()) == []


def test_a_failed_run_names_the_rule_its_log_and_the_whole_log(tmp_path, monkeypatch, mlm_config, capsys):
    """Snakemake's output replayed from a real failed run: all of it in the log file, on
    stderr the plan, the progress, the failed rule with its log and the log's path."""
    from natcomp.profile import runconfig

    fixture = FIXTURES / "snakemake_failed_run.log"
    replay = [sys.executable, "-c", f"import sys; sys.stdout.write(open({str(fixture)!r}).read()); sys.exit(1)"]
    monkeypatch.setattr(runconfig, "snakemake_command", lambda *args, **kwargs: replay)
    monkeypatch.chdir(tmp_path)
    assert main(["evaluate", "--model", str(mlm_config), "--families", "plane", "--name", "m"]) == 1
    log = tmp_path / "runs" / "m" / "natcomp_evaluate.log"
    assert log.read_text() == fixture.read_text()
    err = capsys.readouterr().err.splitlines()
    assert f"natcomp evaluate: 'm' in runs/m; Snakemake's output in {Path('runs/m/natcomp_evaluate.log')}" in err
    assert err[-3].startswith("natcomp evaluate: 1 of 4 jobs done (25%); ")
    assert err[-2:] == [
        "natcomp evaluate: the rule b failed; its log: runs/m/logs/b.log",
        "natcomp evaluate: Snakemake stopped (exit 1); its whole output: runs/m/natcomp_evaluate.log",
    ]


def test_a_run_stopped_before_any_job_shows_why(tmp_path, monkeypatch, mlm_config, capsys):
    """A config check that stops Snakemake prints natcomp's one line; it is shown, not only logged."""
    from natcomp.profile import runconfig

    output = "Building DAG of jobs...\nnatcomp: config run_name: runs/m/results holds the run 'other'\n"
    replay = [sys.executable, "-c", f"import sys; sys.stdout.write({output!r}); sys.exit(1)"]
    monkeypatch.setattr(runconfig, "snakemake_command", lambda *args, **kwargs: replay)
    monkeypatch.chdir(tmp_path)
    assert main(["evaluate", "--model", str(mlm_config), "--families", "plane", "--name", "m"]) == 1
    err = capsys.readouterr().err.splitlines()
    assert err[-3].startswith("natcomp evaluate: planning the jobs; ")
    assert err[-2:] == [
        "natcomp: config run_name: runs/m/results holds the run 'other'",
        "natcomp evaluate: Snakemake stopped (exit 1); its whole output: runs/m/natcomp_evaluate.log",
    ]
