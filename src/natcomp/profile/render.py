"""The profile as a researcher reads it: ``profile.html`` and the figures of profile and compare.

Both are drawn from the LONG profile rows (``profile.tsv``'s columns, one frame per model;
``natcomp compare`` concatenates them), never from the wide compare table. A column a row
lacks reads as blank, so the page and the figure show whatever of the row contract
(docs/profile.md) the rows carry.

One drawing serves both figures (:func:`draw_figure`): a panel per family and measure; per
setting each model's value a dot with its sd as an error bar, the baseline a dashed segment
(the second baseline dotted) and the paper's value a star, all in the model's one colour
(:func:`model_colours`), which the legend shows too. A value that is undefined is not drawn
(never as 0); a value flagged "at chance" is drawn hollow.
"""

from __future__ import annotations

import html
import math
import textwrap
from collections.abc import Mapping, Sequence
from pathlib import Path

import pandas as pd

from natcomp.files import atomic_open
from natcomp.report_table import STYLE, download_link, embedded_png
from natcomp.profile.fit import FAMILIES
from natcomp.summary import FAMILY_NAMES, PAPERS
from natcomp.tsv import write_tsv

__all__ = [
    "DEMO_CAVEAT",
    "FAMILY_ABOUT",
    "compare_figure",
    "draw_figure",
    "model_colours",
    "profile_page",
    "write_profile",
]

DEMO_CAVEAT = (
    "Demo scale: the demo's models and data are tiny. These numbers test the plumbing and the effects the demo "
    "plants, not the model; run with --configfile config/paper.yaml for numbers about the model."
)

#: per family two lines: what the measure is; which direction is more compositional and what
#: chance (the baseline) is. From docs/profile.md, docs/<family>.md and the papers.
FAMILY_ABOUT: Mapping[str, tuple[str, str]] = {
    "mt": (
        "Consistency: the percentage of source pairs that differ in one part (systematicity: a swapped noun phrase, "
        "verb phrase or clause; substitutivity: a British/American synonym) whose translations stay the same apart "
        "from that part. Overgeneralisation: the percentage of idiom sentences translated word for word.",
        "Higher is more compositional for all three (a literal idiom is a local, compositional translation). "
        "There is no chance level, so no baseline is shown.",
    ),
    "noncompsst": (
        "r: Pearson's correlation of the model's MAXABS non-compositionality ratings of SST phrases (computed from "
        "its sentiment predictions) with the human ratings. F1 on the top phrases: the macro-F1 of its sentiment on "
        "the k phrases humans rate least compositional.",
        "Higher is better for both (the model follows where sentiment is not compositional). The baseline of r is "
        "0, no correlation; its 95% interval and p-value say whether r is above it.",
    ),
    "plane": (
        "Whether an adjective-noun phrase entails the noun or its hypernym, per adjective class (I intersective, "
        "S subsective, O intensional): F1 of two-shot prompting and of NLI transfer; accuracy of fine-tuning, per "
        "split kind and test set.",
        "Higher is better. The baseline is chance: the F1 or accuracy of always answering the majority class of "
        "that split.",
    ),
    "pss": (
        "PSS: the percentage of sentence pairs, an original and its polarity-switched rewrite, whose sentiment the "
        "classifier on the encoder gets right for both. Relative PSS: PSS / the classifier's sentiment accuracy x "
        "100.",
        "Higher is more compositional. The baseline is the classifier's sentiment accuracy (chance 50%): a "
        "classifier not above chance makes PSS meaningless, and its rows are flagged 'at chance'.",
    ),
    "tre": (
        "Spearman's rho over SST sentences of the Tree Reconstruction Error (how far the encoder's sentence vector "
        "is from the best composition of word vectors along its parse tree) with WNS, the tree's weighted sentiment "
        "switching (with TI, tree impurity, the simpler tree score).",
        "Lower (more negative) rho is more compositional, as the paper reads it. The baselines are the same rho "
        "for random vectors and for the encoder's own vectors shuffled across sentences.",
    ),
}

#: extra style of the profile page over the project's table style (report_table.STYLE)
PAGE_STYLE = """\
body { max-width: 1360px; }
h2 { margin-top: 1.6em; }
p.scale { background: #fff6d8; padding: 6px; }
p.about { margin: 0.3em 0 0.6em 0; }
table.profile { width: 100%; }
table.natcomp td { vertical-align: top; }
table.profile td.number { text-align: right; }
table.profile td.number, table.profile td.setting, table.profile td.baseline { white-space: nowrap; }
table.natcomp tr.flagged td { background: #fdecea; }
span.flag { color: #a40000; font-weight: bold; }
.muted { color: #666; font-size: 11px; }
img { max-width: 100%; }
figure { margin: 0.8em 0; }
"""

#: decimals a value of each unit is shown with (percents to 0.1, correlations to 0.001)
_DECIMALS = {"%": 1, "r": 3, "rho": 3}

#: marks of the figure's legend that are no model
_STYLE_LEGEND = (
    ("o", "-", "value (bar: sd)"),
    ("o", "hollow", "at chance (value meaningless)"),
    ("", "--", "baseline"),
    ("", ":", "second baseline"),
    ("*", "", "paper's value"),
)


def _text(row: Mapping, column: str) -> str:
    """The cell as text; a column the row lacks, or a missing cell, is ''."""
    value = row.get(column)
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return str(value).strip()


def _number(row: Mapping, column: str) -> float | None:
    text = _text(row, column)
    if not text:
        return None
    try:
        number = float(text)
    except ValueError:
        return None
    return None if math.isnan(number) else number


def _format(number: float, unit: str) -> str:
    decimals = _DECIMALS.get(unit)
    return f"{number:.{decimals}f}" if decimals is not None else f"{number:.4g}"


def _records(rows: pd.DataFrame) -> list[dict]:
    return rows.to_dict("records")


def _families(rows: pd.DataFrame) -> list[str]:
    present = list(dict.fromkeys(rows["family"]))
    return sorted(present, key=lambda family: FAMILIES.index(family) if family in FAMILIES else len(FAMILIES))


# ------------------------------------------------------------------ the figures


def model_colours(models: Sequence[str]) -> dict[str, tuple]:
    """One colour per model (in the order given), used for its dots, bars, baselines, paper
    stars and legend entry alike."""
    from matplotlib import colormaps

    palette = colormaps["tab10" if len(models) <= 10 else "tab20"]
    return {model: tuple(palette(index % palette.N)) for index, model in enumerate(models)}


def _axis_label(records: list[dict]) -> str:
    units = list(dict.fromkeys(_text(row, "unit") for row in records if _text(row, "unit")))
    directions = list(dict.fromkeys(_text(row, "direction") for row in records if _text(row, "direction")))
    label = ", ".join(units) or "value"
    if directions:
        label += f" ({'; '.join(directions)})"
    return textwrap.fill(label, 34)


def _point(axis, x: float, y: float, colour: tuple, gid: str, **style) -> None:
    """One mark (a value's dot, a paper's star) in the model's colour."""
    axis.plot([x], [y], linestyle="none", color=colour, gid=gid, **{"markeredgewidth": 1.5, **style})


def _draw_panel(axis, records: list[dict], models: Sequence[str], colours: Mapping[str, tuple]) -> None:
    settings = list(dict.fromkeys(_text(row, "setting") for row in records))
    slot = 0.8 / max(1, len(models))
    drawn = 0
    for row in records:
        model, setting = _text(row, "model"), _text(row, "setting")
        colour = colours[model]
        x = settings.index(setting) + (models.index(model) - (len(models) - 1) / 2) * slot
        key = f"{model}|{setting}"
        value, sd = _number(row, "value"), _number(row, "sd")
        for column, style in (("baseline", "dashed"), ("baseline2", "dotted")):
            baseline = _number(row, column)
            if baseline is not None:
                axis.hlines(
                    baseline, x - 0.45 * slot, x + 0.45 * slot, colors=[colour], linestyles=style, gid=f"{column}|{key}"
                )
                drawn += 1
        paper = _number(row, "paper_value")
        if paper is not None:
            style = {"marker": "*", "markersize": 11, "markeredgecolor": "black", "markeredgewidth": 0.6}
            # beside the model's dot, not under it, so that both stay visible
            _point(axis, x + 0.25 * slot, paper, colour, f"paper|{key}", **style)
            drawn += 1
        # an undefined value (blank) draws nothing: never a dot at 0
        if value is None or _text(row, "flag") == "undefined":
            continue
        if sd is not None:
            axis.vlines(x, value - sd, value + sd, colors=[colour], linewidth=1.5, gid=f"sd|{key}")
        face = "white" if _text(row, "flag") == "at chance" else colour  # at chance: hollow
        _point(axis, x, value, colour, f"value|{key}", marker="o", markersize=6, markerfacecolor=face)
        drawn += 1
    axis.set_xticks(range(len(settings)))
    axis.set_xticklabels(
        [textwrap.fill(setting, 14) for setting in settings],
        rotation=30 if len(settings) > 3 else 0,
        fontsize=7,
        ha="right" if len(settings) > 3 else "center",
    )
    axis.set_xlim(-0.6, len(settings) - 0.4)
    axis.set_ylabel(_axis_label(records), fontsize=7)
    axis.tick_params(axis="y", labelsize=7)
    axis.grid(axis="y", color="#e4e4e4", linewidth=0.6)
    if not drawn:
        axis.text(0.5, 0.5, "no defined value", transform=axis.transAxes, ha="center", va="center", color="#666")


def draw_figure(rows: pd.DataFrame, colours: Mapping[str, tuple] | None = None):
    """The figure of long profile ``rows`` (one model's or several models'): a panel per
    family and measure, as the module says; returns the matplotlib Figure (not saved)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D

    models = list(dict.fromkeys(str(model) for model in rows["model"]))
    colours = dict(colours or model_colours(models))
    panels = [
        (family, measure)
        for family in _families(rows)
        for measure in dict.fromkeys(rows.loc[rows["family"] == family, "measure"])
    ]
    columns = min(3, max(1, len(panels)))
    lines = max(1, math.ceil(len(panels) / columns))
    figure, axes = plt.subplots(
        lines, columns, figsize=(4.4 * columns, 3.0 * lines + 0.6), squeeze=False, layout="constrained"
    )
    records = _records(rows)
    for axis, (family, measure) in zip(axes.flat, panels):
        part = [row for row in records if row["family"] == family and row["measure"] == measure]
        _draw_panel(axis, part, models, colours)
        title = f"{FAMILY_NAMES.get(family, family)}: {measure}"
        axis.set_title(textwrap.fill(title, 48), fontsize=8)
    for axis in list(axes.flat)[len(panels) :]:
        axis.axis("off")
    handles = [
        Line2D([], [], marker="o", linestyle="none", color=colours[model], label=model, gid=f"legend|{model}")
        for model in models
    ]
    for marker, style, label in _STYLE_LEGEND:
        handles.append(
            Line2D(
                [],
                [],
                marker=marker or None,
                color="#444",
                linestyle="none" if style in ("", "-", "hollow") else style,
                markerfacecolor="white" if style == "hollow" else "#444",
                markersize=9 if marker == "*" else 6,
                label=label,
            )
        )
    figure.legend(handles=handles, loc="outside lower center", ncols=min(len(handles), 8), fontsize=7, frameon=False)
    return figure


def _save(figure, path: str | Path, title: str) -> None:
    from natcomp.figures import save_png

    save_png(figure, path, title=title, dpi=100, tight_layout=False)


def compare_figure(rows: pd.DataFrame, path: str | Path, title: str | None = None) -> None:
    """The compare figure of several models' long profile rows (``profile.tsv`` frames
    concatenated), as PNG at ``path``."""
    _save(draw_figure(rows), path, title or "Profiles compared: each model's value per family, measure and setting")


def _figure_png(rows: pd.DataFrame, title: str) -> bytes:
    """One family's figure as PNG bytes (saved the one way, natcomp.figures.save_png)."""
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "figure.png"
        _save(draw_figure(rows), path, title)
        return path.read_bytes()


# ------------------------------------------------------------------ profile.html


def _value_cell(row: Mapping) -> str:
    unit, flag = _text(row, "unit"), _text(row, "flag")
    value, sd = _number(row, "value"), _number(row, "sd")
    if value is None:
        return '<span class="flag">undefined</span>'
    shown = _format(value, unit)
    if sd is not None:
        shown += f" ± {_format(sd, unit)}"
    if unit == "%":
        shown += " %"
    elif unit:
        shown += f" ({unit})" if unit not in ("r", "rho") else ""
    n, over = _text(row, "n"), _text(row, "sd_over")
    count = f"n = {n}{' ' + over if over else ''}" if n else ""
    parts = [html.escape(shown)]
    if count:
        parts.append(f'<span class="muted">({html.escape(count)})</span>')
    if flag:
        parts.append(f'<span class="flag">{html.escape(flag)}</span>')
    low, high, p_value = _number(row, "ci_low"), _number(row, "ci_high"), _number(row, "p_value")
    extra = []
    if low is not None and high is not None:
        extra.append(f"95% CI [{_format(low, unit)}, {_format(high, unit)}]")
    if p_value is not None:
        extra.append(f"p = {p_value:.2g}")
    if extra:
        parts.append(f'<br><span class="muted">{html.escape("; ".join(extra))}</span>')
    return " ".join(parts)


def _baseline_cell(row: Mapping) -> str:
    unit = _text(row, "unit")
    parts = []
    for column in ("baseline", "baseline2"):
        value = _number(row, column)
        if value is not None:
            kind = _text(row, f"{column}_kind")
            shown = _format(value, unit) + (" %" if unit == "%" else "")
            parts.append(html.escape(shown) + (f' <span class="muted">({html.escape(kind)})</span>' if kind else ""))
    return "<br>".join(parts) or '<span class="muted">none</span>'


def _paper_cell(row: Mapping) -> str:
    value = _number(row, "paper_value")
    if value is None:
        return '<span class="muted">–</span>'
    source = _text(row, "paper_source")
    shown = html.escape(_format(value, _text(row, "unit")))
    return shown + (f'<br><span class="muted">{html.escape(source)}</span>' if source else "")


def _flag_cell(row: Mapping) -> str:
    flag, note = _text(row, "flag"), _text(row, "note")
    if _number(row, "value") is None and not flag:
        flag = "undefined"
    if not flag and not note:
        return ""
    reason = note or "no reason given in the profile"
    label = f'<span class="flag">{html.escape(flag)}</span>: ' if flag else ""
    return label + html.escape(reason)


def _family_table(records: list[dict]) -> str:
    head = (
        "<tr><th>measure</th><th>setting</th><th>value ± sd (n)</th><th>baseline (kind)</th>"
        "<th>paper value</th><th>flag / note</th></tr>"
    )
    # a measure's rows together (the profile lists them per setting), in the figure's panel order
    measures = list(dict.fromkeys(_text(row, "measure") for row in records))
    body, previous = [], None
    for row in sorted(records, key=lambda row: measures.index(_text(row, "measure"))):
        measure = _text(row, "measure")
        cell = html.escape(measure)
        if measure != previous:
            about = ", ".join(part for part in (_text(row, "unit"), _text(row, "direction")) if part)
            cell += f'<br><span class="muted">{html.escape(about)}</span>' if about else ""
        else:
            cell = f'<span class="muted">{cell}</span>'
        previous = measure
        flagged = _text(row, "flag") or _number(row, "value") is None
        body.append(
            f"<tr{' class=flagged' if flagged else ''}><td>{cell}</td><td class=setting>{html.escape(_text(row, 'setting'))}</td>"
            f'<td class="number">{_value_cell(row)}</td><td class=baseline>{_baseline_cell(row)}</td>'
            f'<td class="number">{_paper_cell(row)}</td><td>{_flag_cell(row)}</td></tr>'
        )
    return (
        f'<table class="natcomp profile">\n<thead>{head}</thead>\n<tbody>\n'
        + "\n".join(body)
        + "\n</tbody>\n</table>\n"
    )


def profile_page(
    profile: pd.DataFrame,
    title: str,
    *,
    tsv_name: str | None = None,
    tsv_data: bytes | None = None,
    precision: str | None = None,
    fine_tuning: str | None = None,
    served: str | None = None,
    warnings: Sequence[str] | None = None,
) -> str:
    """``profile.html``: the demo caveat once (demo scale), the run's precision and
    fine-tuning method where given, a served model's server, id and fingerprint and the
    run's warnings (a fingerprint that changed), then per family its two lines,
    its rows and its figure (a PNG embedded as a data URI: the page is one file a user can
    open or mail, like summary.html). No JavaScript."""
    records = _records(profile)
    scales = sorted({_text(row, "scale") for row in records} - {""})
    parts = [f"<h1>{html.escape(title)}</h1>"]
    if "demo" in scales:
        parts.append(f'<p class="scale demo">{html.escape(DEMO_CAVEAT)}</p>')
    elif scales:
        parts.append(f"<p class=settings>Scale: {html.escape(', '.join(scales))}.</p>")
    if precision:
        parts.append(f"<p class=settings>Precision: {html.escape(precision)}.</p>")
    if fine_tuning:
        parts.append(f"<p class=settings>Fine-tuning: {html.escape(fine_tuning)}.</p>")
    if served:
        parts.append(f"<p class=settings>Served: {html.escape(served)}</p>")
    for warning in warnings or ():
        parts.append(f"<p class=settings><strong>Warning:</strong> {html.escape(warning)}</p>")
    parts.append(
        "<p>Per family: what is measured and which direction is more compositional, then one row per measure and "
        "setting: the value with its standard deviation over the repetitions named in brackets, the baseline in the "
        "same unit, the paper's value where the model is the paper's, and the reason for any flag. The figure "
        "shows the same rows: dot = value, bar = sd, dashed = baseline, dotted = second baseline, star = paper's "
        "value, hollow = at chance; an undefined value is not drawn.</p>"
    )
    if tsv_name is not None and tsv_data is not None:
        parts.append(download_link(tsv_name, tsv_data, len(profile)))
    families = _families(profile) if len(profile) else []
    names = {family: FAMILY_NAMES.get(family, family) for family in families}
    parts.append(
        "<ul>"
        + "".join(f'<li><a href="#{family}">{html.escape(names[family])}</a></li>' for family in families)
        + "</ul>"
    )
    for family in families:
        rows = profile[profile["family"] == family]
        what, direction = FAMILY_ABOUT.get(family, ("", ""))
        parts.append(f'<h2 id="{html.escape(family)}">{html.escape(names[family])}</h2>')
        if family in PAPERS:
            parts.append(f'<p class="muted">{html.escape(PAPERS[family])}</p>')
        parts.append(f'<p class="about">{html.escape(what)}<br>{html.escape(direction)}</p>')
        parts.append(_family_table(_records(rows)))
        figure = embedded_png(_figure_png(rows, f"{names[family]}: {rows['model'].iloc[0]}"), f"{names[family]} figure")
        parts.append(
            f"<figure>{figure}"
            f"<figcaption>{html.escape(names[family])}: the rows above as a figure.</figcaption></figure>"
        )
    if not families:
        parts.append("<p>The profile has no rows: no family ran for this model.</p>")
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f"<title>{html.escape(title)}</title>\n<style>\n{STYLE}{PAGE_STYLE}</style>\n</head>\n<body>\n"
        + "\n".join(parts)
        + "\n</body>\n</html>\n"
    )


def write_profile(
    profile: pd.DataFrame,
    results: str | Path,
    title: str,
    *,
    precision: str | None = None,
    fine_tuning: str | None = None,
    served: str | None = None,
    warnings: Sequence[str] | None = None,
) -> tuple[Path, Path]:
    """``results/profile.tsv`` and ``results/profile.html`` (each written atomically);
    ``precision`` says on the page what inference and training computed in, ``fine_tuning``
    how the fine-tuning families trained the model (:func:`natcomp.profile.fit.fine_tuning_text`)."""
    from natcomp.profile.table import PROFILE_COLUMNS

    tsv = Path(results) / "profile.tsv"
    html_path = Path(results) / "profile.html"
    # %.6g: a p-value of 3e-05 stays 3e-05 (%.4f would print 0.0000)
    write_tsv(tsv, profile, list(PROFILE_COLUMNS), float_format="%.6g")
    page = profile_page(
        profile,
        title,
        tsv_name=tsv.name,
        tsv_data=tsv.read_bytes(),
        precision=precision,
        fine_tuning=fine_tuning,
        served=served,
        warnings=warnings,
    )
    with atomic_open(html_path) as out:
        out.write(page)
    return tsv, html_path
