"""natcomp.figures.save_png: the one way every family saves a figure."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from natcomp.figures import save_png  # noqa: E402

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def test_the_title_stands_above_the_panels_wrapped_to_the_figure_width(tmp_path):
    figure, axis = plt.subplots(figsize=(4, 3))
    axis.plot([0, 1], [1, 0])
    title = "PLANE Figure 8: fine-tuned accuracy by maximum input length (mean and sd over splits)"
    saved = save_png(figure, tmp_path / "f.png", title=title)
    shown = saved._suptitle.get_text()
    assert shown.replace("\n", " ") == title
    assert max(len(line) for line in shown.splitlines()) <= 4 * 13, "wrapped to the figure's width"
    assert (tmp_path / "f.png").read_bytes().startswith(PNG_SIGNATURE)
    assert not plt.fignum_exists(figure.number), "closed after saving"
    assert [path.name for path in tmp_path.iterdir()] == ["f.png"], "no temporary file left"


def test_without_a_title_none_is_added(tmp_path):
    figure, _ = plt.subplots()
    assert save_png(figure, tmp_path / "g.png")._suptitle is None
