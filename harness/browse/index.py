"""The browser's index page: the report's tables and plot, and a table of every episode.

Every figure comes from the report (:func:`harness.report.build.build_report`) and
reads as ``lighthouse report`` writes it (the texts of :mod:`harness.report.texts`
and :mod:`harness.report.render`): every interval is over seeds and each table says
what its intervals resample; a missing or zero-width interval carries its reason; a
comparison says what it left out; too few seeds to conclude is said in words; an
incomplete folder's intervals are marked and its plot (scores and performance
profiles) dashed; an entrant flagged for fallbacks carries its flag. The
episodes table is plain HTML that a small inline script sorts and filters; each
episode links to its viewer page. No external resource: the page works from file://.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Sequence
from pathlib import Path

from harness.browse.crossplay import crossplay_html
from harness.browse.folder import EpisodeRow, Snapshot
from harness.report.faithfulness import (
    FAITHFULNESS_HEADS,
    FAITHFULNESS_NOTE,
    faithfulness_cells,
    unmeasured_text,
)
from harness.report.model import EntrantRow, Leaderboard, MeanInterval, Report
from harness.report.render import (
    board_cells,
    entrant_cells,
    entrant_ends,
    entrant_figures,
    entrant_heads,
    paired_cells,
    pairwise_cells,
    pairwise_details,
    report_svg,
)
from harness.report.selection import describe
from harness.report.texts import (
    apart_line,
    board_note,
    columns_of,
    ends_note,
    entrant_rank_text,
    few_seeds_line,
    few_seeds_note,
    headline,
    incomplete_mark,
    latency_text,
    not_own_note,
    paired_note,
    pairwise_note,
    percent_text,
    reason_notes,
    score_note,
    shows_not_own,
    too_few_line,
)
from harness.summary import cost_text

TEMPLATE = Path(__file__).with_name("index.html")


def _e(value: object) -> str:
    return html.escape(str(value), quote=True)


def _inline(text: str) -> str:
    """The report's sentences (Markdown's **bold** and `code`) as HTML."""
    out = _e(text)
    out = re.sub(r"\*\*(.+?)\*\*", r"<strong>\1</strong>", out)
    return re.sub(r"`(.+?)`", r"<code>\1</code>", out)


def _table(
    header: Sequence[str], rows: Iterable[Sequence[str]], *, numeric: Sequence[int] = ()
) -> str:
    """A table of already-escaped cells; columns in ``numeric`` are right-aligned."""
    head = "".join(f"<th>{h}</th>" for h in header)
    body = "".join(
        "<tr>"
        + "".join(
            f'<td class="num">{c}</td>' if i in numeric else f"<td>{c}</td>"
            for i, c in enumerate(row)
        )
        + "</tr>"
        for row in rows
    )
    table = f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
    return f'<div class="wide">{table}</div>'


def _name(name: str, flags: dict[str, str]) -> str:
    flag = flags.get(name)
    return _e(name) + (f' <span class="flag">⚠ {_e(flag)}</span>' if flag else "")


#: The most lines a list of the head shows; the rest are counted.
_LISTED = 50


def _listed(key: str, title: str, lines: Sequence[str]) -> str:
    """A list of the head's (files skipped, or not of this folder), the first
    :data:`_LISTED` lines shown."""
    items = "".join(f"<li>{_e(n)}</li>" for n in lines[:_LISTED])
    more = len(lines) - _LISTED
    tail = f"<li>... and {more} more</li>" if more > 0 else ""
    return f'<div class="notes" id="{key}">{title}<ul>{items}{tail}</ul></div>'


def _head(snapshot: Snapshot) -> list[str]:
    report = snapshot.report
    done = report.completeness
    out = [
        f"<h1>{_e(snapshot.title)}</h1>",
        f'<p class="summary">{_inline(headline(report))} Folder: '
        f"<code>{_e(snapshot.root)}</code></p>",
    ]
    if not done.complete:
        per = ", ".join(f"{n} {c.finished}/{c.planned}" for n, c in done.by_entrant.items())
        out.append(
            f'<div class="banner" id="incomplete"><strong>{_e(done.summary.capitalize())}'
            f"</strong> ({_e(per)}). Every figure is computed on the finished episodes only; "
            "every interval is marked (incomplete) and drawn dashed: none is final.</div>"
        )
    if snapshot.in_progress:
        n = snapshot.in_progress
        out.append(
            f'<div class="banner live" id="in-progress">{n} episode{"s" if n != 1 else ""} '
            "in progress (being played or written now): listed below, not yet in any "
            "figure. Reload to see them finished.</div>"
        )
    told = describe(report.selection)
    if told:
        out.append(f'<p class="summary">{" ".join(_inline(t) for t in told)}</p>')
    if snapshot.notes:
        out.append(_listed("skipped", "Skipped, unreadable:", snapshot.notes))
    if snapshot.strays:
        out.append(_listed("strays", "Not episodes of this folder:", snapshot.strays))
    out.append(
        '<nav class="sections"><a href="#leaderboard">leaderboard</a><a href="#scores">'
        'scores</a><a href="#comparisons">comparisons</a><a href="#figures">per entrant</a>'
        '<a href="#episodes">episodes</a></nav>'
    )
    return out


def _notes(intervals: Iterable[MeanInterval | None], dropped: Iterable[tuple[str, str]]) -> str:
    """What a table's interval tags mean and what its figures left out, as a list."""
    lines = reason_notes(intervals) + [f"{name}: {text}." for name, text in dropped if text]
    if not lines:
        return ""
    items = "".join(f"<li>{_e(line)}</li>" for line in lines)
    return f'<ul class="figure-notes">{items}</ul>'


def _entrant_intervals(rows: Sequence[EntrantRow]) -> list[MeanInterval | None]:
    return [iv for r in rows for iv in (r.score, *r.per_variant.values(), r.iqm, r.ceiling_ratio)]


def _leaderboard(report: Report) -> list[str]:
    mark = incomplete_mark(report)
    flags = report.fallback_flags
    groups = report.seat_groups
    rows = report.entrants  # in rank order, those ranked apart last
    ranked = any(r.rank is not None or r.mostly_not_own for r in rows)
    mine = shows_not_own(rows)
    header = [
        *(["rank (95% simultaneous)"] if ranked else []),
        "entrant", *(_e(g) for g in groups), "episodes", "seeds",
        *(_e(h) for h in entrant_heads(report)),
        *(["turns not its own"] if mine else []), "ended",
    ]  # fmt: skip
    body = [
        [
            *([_e(entrant_rank_text(r, mark))] if ranked else []),
            _name(r.entrant, flags),
            *(_e(r.seats.get(g, "")) for g in groups),
            *(_e(text) for text in entrant_figures(report, r, mark)),
            *(_e(text) for text in entrant_ends(r, mine)),
        ]
        for r in rows
    ]
    first = 1 if ranked else 0
    seeds = next((r.rank.seeds for r in rows if r.rank is not None), 0)
    told = not_own_note(rows, flags)
    out = [
        '<section id="leaderboard"><h2>Leaderboard</h2>',
        _table(header, body, numeric=[first + len(groups) + 1, first + len(groups) + 2]),
        f'<p class="method">{_inline(score_note(report, ranked, seeds))}</p>',
        *(
            [f'<p class="method" id="ends">{_inline(ended)}</p>']
            if (ended := ends_note(report))
            else []
        ),
        *([f'<p class="method" id="not-own">{_inline(told)}</p>'] if told else []),
        *(
            [f'<p class="method" id="few-seeds">{_inline(few)}</p>']
            if (few := few_seeds_note(rows))
            else []
        ),
        _notes(_entrant_intervals(rows), [(r.entrant, r.dropped) for r in rows]),
    ]
    if report.ceiling is not None and report.ceiling.hidden:
        out.append(
            f'<p class="method">{_e(report.ceiling.name)} was played for a report, not '
            "as an entrant.</p>"
        )
    if report.identical:
        twins = "; ".join(" = ".join(group) for group in report.identical)
        out.append(
            f'<p class="method"><strong>Identical entrants</strong> (the same spec for '
            f"every seat group): {_e(twins)}. Their differences measure chance alone.</p>"
        )
    out.append("</section>")
    return out


def _comparisons(report: Report) -> list[str]:
    flags = report.fallback_flags
    mark = incomplete_mark(report)
    parts = [_paired(report, flags, mark), _pairwise(report), _boards(report, flags, mark)]
    if not any(parts):
        return []
    blocks = "".join(f'<div class="block">{"".join(part)}</div>' for part in parts if part)
    return [f'<section id="comparisons"><h2>Comparisons</h2><div class="blocks">{blocks}</div>',
            "</section>"]  # fmt: skip


def _paired(report: Report, flags: dict[str, str], mark: str) -> list[str]:
    if not report.paired:
        return []
    ref = report.reference or ""
    rows = [[_name(r.entrant, flags), *map(_e, paired_cells(r, mark))] for r in report.paired]
    few = too_few_line([r.seeds for r in report.paired], report.pairwise.alpha)
    return [
        f'<h3 id="paired">Paired against {_e(ref)}</h3>',
        *([f'<p class="conclude">{_inline(few)}</p>'] if few else []),
        _table(
            [
                "entrant",
                "vs",
                "seeds",
                "mean difference (95% CI over seeds)",
                "p",
                f"P(entrant &gt; {_e(ref)}) (95% CI)",
                "wins",
                "ties",
                "losses",
            ],
            rows,
            numeric=[2, 4, 6, 7, 8],
        ),
        f'<p class="method">{_inline(paired_note(report, report.pairwise.flips))}</p>',
        _notes(
            [iv for r in report.paired for iv in (r.difference, r.improvement)],
            [(f"{r.entrant} - {r.reference}", r.dropped) for r in report.paired],
        ),
    ]


def _pairwise(report: Report) -> list[str]:
    names = [r.entrant for r in report.entrants]
    if not (len(names) > 2 or (len(names) == 2 and not report.paired)):
        return []
    cell = pairwise_cells(report)
    matrix = _table(
        ["row - column", *(_e(n) for n in names)],
        [[_e(a), *("—" if a == b else _e(cell.get((a, b), "-")) for b in names)] for a in names],
    )
    details = _table(
        ["entrant", "versus", "seeds", "mean difference (CI at Holm's level, over seeds)",
         "level", "p", "p (Holm)"],
        [[_e(text) for text in row] for row in pairwise_details(report)],
        numeric=[2],
    )  # fmt: skip
    pw = report.pairwise
    told = (
        f'<p class="conclude"><strong>Too few seeds to conclude</strong>: {_e(pw.note)}.</p>'
        if pw.note
        else ""
    )
    return [
        '<h3 id="pairwise">Pairwise differences</h3>',
        told,
        matrix,
        f'<p class="method">{_inline(pairwise_note(report, pw.flips))}</p>',
        details,
        _notes(
            [r.difference for r in pw.rows],
            [(f"{r.entrant} - {r.versus}", r.dropped) for r in pw.rows],
        ),
    ]


def _apart(board: Leaderboard, flags: dict[str, str]) -> str:
    """The lines naming the board's entrants ranked apart (escaped), empty if none."""
    lines = [
        apart_line([_name(n, flags) for n in board.apart]),
        few_seeds_line([_name(n, flags) for n in board.few_seeds]),
    ]
    return " ".join(line for line in lines if line)


def _boards(report: Report, flags: dict[str, str], mark: str) -> list[str]:
    out = []
    for board in report.leaderboards:
        group = board.group
        context = ", ".join(f"{k}: {v}" for k, v in board.context.items())
        rows = [board_cells(r, mark, _name(r.entrant, flags), _e) for r in board.rows]
        told = (
            f'<p class="conclude"><strong>Too few seeds to conclude</strong>: {_e(board.note)}.</p>'
            if board.note
            else ""
        )
        note = board_note(group, context, board.seeds, board.cells, len(board.rows))
        out += [
            f"<h3>{_e(group.capitalize())} leaderboard"
            + (f" ({_e(context)})" if context else "")
            + "</h3>",
            told,
            _table(
                [
                    "rank (95% simultaneous)",
                    _e(group),
                    "entrant",
                    "seeds",
                    "score (95% CI over seeds)",
                ],
                rows,
                numeric=[3],
            ),
            f'<p class="method">{_inline(note)}</p>',
            *([f'<p class="method apart">{apart}</p>'] if (apart := _apart(board, flags)) else []),
            _notes([r.score for r in board.rows], []),
        ]
    return out


def _plot(snapshot: Snapshot) -> list[str]:
    report = snapshot.report
    if not snapshot.counted:
        return ['<section id="scores"><h2>Scores</h2><p>No finished episode yet.</p></section>']
    svg = report_svg(report, snapshot.counted, max_score=snapshot.game.max_score)
    return [
        '<section id="scores"><h2>Scores</h2>',
        f'<figure id="score-plot">{svg}</figure>',
        '<p class="method">Each dot is an episode; the circle is the score (the mean over '
        "seeds of each seed's balanced mean over the variants) and the bar its 95% "
        "interval over seeds. Below, each entrant's performance profile: the share of its "
        "seeds whose seed score is at least tau, for every tau.</p></section>",
    ]


def _figures(report: Report) -> list[str]:
    flags = report.fallback_flags
    columns = columns_of(report)
    rows = report.entrants
    game = _table(
        ["entrant", *(_e(c.label) for c in columns)],
        [[_name(r.entrant, flags), *(_e(c.format(r.columns[c.key])) for c in columns)]
         for r in rows],
        numeric=range(1, len(columns) + 1),
    )  # fmt: skip
    roles = report.roles
    llm = _table(
        ["entrant", "calls", "retries (rescued)", *(f"fallback {_e(role)}" for role in roles),
         "episodes without fallback", "tokens in / out", "cost", "latency p50 / p95"],
        [
            [
                _name(r.entrant, flags), str(r.calls),
                f"{r.retries} ({r.rescued})",
                *(_e(percent_text(r.fallback_rate.get(role))) for role in roles),
                f"{r.fallback_free_episodes} of {r.episodes}",
                f"{r.input_tokens:,} / {r.output_tokens:,}",
                cost_text(r.cost_usd, r.unpriced_calls),
                _e(latency_text(r.latency_ms)),
            ]
            for r in rows
        ],
        numeric=range(1, len(roles) + 7),
    )  # fmt: skip
    out = ['<section id="figures"><h2>Per entrant</h2>', game]
    if report.legend:
        out.append(f'<p class="legend" id="legend">{_e(report.legend)}.</p>')
    out += [
        "<h3>Model calls</h3>",
        llm,
        '<p class="method">Fallback: the share of a role\'s model turns that fell back to '
        "the seat's baseline (- when the role made no model call). Latency: per call, "
        "cached calls left out.</p>",
    ]
    clean = report.fallback_free
    if sum(r.episodes for r in clean.entrants) != report.episodes:
        mark = incomplete_mark(report)
        out += [
            "<h3>Without LLM fallbacks</h3>",
            _table(
                ["entrant", "episodes", "seeds", *(_e(h) for h in entrant_heads(report))],
                [
                    [
                        _name(r.entrant, flags),
                        str(r.episodes),
                        str(r.seeds),
                        *(_e(text) for text in entrant_cells(report, r, mark)),
                    ]
                    for r in clean.entrants
                ],
                numeric=[1, 2],
            ),
            '<p class="method">Only the episodes in which no seat fell back to its baseline; '
            "every figure as above, over the seeds these episodes finish.</p>",
            _notes(
                _entrant_intervals(clean.entrants),
                [(r.entrant, r.dropped) for r in clean.entrants],
            ),
        ]
    out.append("</section>")
    return out


def _faithfulness(report: Report) -> list[str]:
    """The faithfulness section (harness/report/faithfulness.py); none without figures."""
    rows = report.faithfulness
    if not rows:
        return []
    cells = []
    for r in rows:
        row = [_e(c) for c in faithfulness_cells(r)]
        if r.parrots:
            row[6] = f'<span class="flag parrots">{row[6]}</span>'
        cells.append(row)
    out = [
        '<section id="faithfulness"><h2>Faithfulness</h2>',
        _table([_e(h) for h in FAITHFULNESS_HEADS], cells, numeric=range(2, 8)),
        f'<p class="method">{_e(FAITHFULNESS_NOTE)}</p>',
    ]
    unmeasured = unmeasured_text(rows)
    if unmeasured:
        out.append(f"<p>{_e(unmeasured)}</p>")
    return [*out, "</section>"]


def _options(field: str, label: str, values: Iterable[str]) -> str:
    options = "".join(f'<option value="{_e(v)}">{_e(v)}</option>' for v in sorted(set(values)))
    return (
        f'<label for="f-{field}">{label}<select id="f-{field}"><option value="">all</option>'
        f"{options}</select></label>"
    )


def _number(value: float | int | None) -> str:
    return "" if value is None else repr(value)


def _episode_row(row: EpisodeRow) -> str:
    link = (
        f'<a href="episodes/{_e(row.page)}">{_e(row.episode_id)}</a>'
        if row.page is not None
        else _e(row.episode_id)
    )
    status = row.status.replace(" ", "-")
    fell = " fell-back" if row.fallbacks else ""
    data = (
        f'data-episode="{_e(row.episode_id)}" data-entrant="{_e(row.entrant)}" '
        f'data-seed="{_number(row.seed)}" data-variant="{_e(row.variant or "")}" '
        f'data-reason="{_e(row.reason or "")}" data-status="{_e(row.status)}" '
        f'data-score="{_number(row.score)}"'
    )
    score = "" if row.score is None else f"{row.score:.2f}"
    cells = [
        f"<td>{link}</td>",
        f"<td>{_e(row.entrant)}</td>",
        f'<td class="num" data-sort="{_number(row.seed)}">{_number(row.seed)}</td>',
        f"<td>{_e(row.variant or '')}</td>",
        f'<td class="num" data-sort="{_number(row.repetition)}">{_number(row.repetition)}</td>',
        f'<td class="num" data-sort="{_number(row.score)}">{score}</td>',
        f"<td>{_e(row.reason or '')}</td>",
        f'<td class="num fallbacks" data-sort="{row.fallbacks}">{row.fallbacks}</td>',
        f'<td class="num" data-sort="{row.tokens}">{row.tokens:,}</td>',
        f'<td class="num" data-sort="{row.cost_usd!r}">'
        f"{cost_text(row.cost_usd, row.unpriced)}</td>",
        f"<td>{_e(row.status)}</td>",
    ]
    return f'<tr class="status-{status}{fell}" {data}>{"".join(cells)}</tr>'


#: The episodes table's columns: key, header, numeric.
EPISODE_COLUMNS = (
    ("episode", "episode", False),
    ("entrant", "entrant", False),
    ("seed", "seed", True),
    ("variant", "variant", False),
    ("repetition", "rep.", True),
    ("score", "score", True),
    ("reason", "reason", False),
    ("fallbacks", "fallbacks", True),
    ("tokens", "tokens", True),
    ("cost", "cost", True),
    ("status", "status", False),
)


def _episodes(snapshot: Snapshot) -> list[str]:
    rows = snapshot.rows
    heads = "".join(
        f'<th data-key="{key}" data-type="{"number" if numeric else "text"}" '
        f'aria-sort="none"><button type="button">{label}</button></th>'
        for key, label, numeric in EPISODE_COLUMNS
    )
    filters = "".join(
        [
            _options("entrant", "entrant", (r.entrant for r in rows)),
            '<label for="f-seed">seed<input id="f-seed" type="text" '
            'placeholder="7 or 0-9"></label>',
            _options("variant", "variant", (r.variant for r in rows if r.variant)),
            '<label for="f-min">score from<input id="f-min" type="number" step="any"></label>',
            '<label for="f-max">score to<input id="f-max" type="number" step="any"></label>',
            _options("reason", "reason", (r.reason for r in rows if r.reason)),
            _options("status", "status", (r.status for r in rows)),
            '<button id="f-clear" type="button">show all</button>',
        ]
    )
    return [
        '<section id="episodes"><h2>Episodes</h2>',
        f'<div id="filters">{filters}</div>',
        f'<p id="shown-count"><span id="shown">{len(rows)}</span> of {len(rows)} episodes '
        "shown. Click a heading to sort; an episode opens in the viewer. Fallbacks: the "
        "turns that fell back to a seat's baseline.</p>",
        f'<div class="wide"><table id="episodes-table"><thead><tr>{heads}</tr></thead>'
        f"<tbody>{''.join(_episode_row(r) for r in rows)}</tbody></table></div>",
        "</section>",
    ]


def leaderboard_fragment(snapshot: Snapshot) -> str:
    """The index page's head (its title, what is incomplete or skipped) and leaderboard,
    as an HTML fragment without scripts, for a page of someone else's (a notebook)."""
    head = [part for part in _head(snapshot) if not part.startswith("<nav")]
    return "\n".join([*head, *_leaderboard(snapshot.report)])


def index_page(snapshot: Snapshot) -> str:
    """The index page of ``snapshot``: one self-contained HTML document."""
    parts = ["<header>", *_head(snapshot), "</header><main>", '<div class="top">']
    parts += _leaderboard(snapshot.report)
    parts += _plot(snapshot)
    parts.append("</div>")
    parts += _comparisons(snapshot.report)
    parts += crossplay_html(snapshot.report.crossplay)
    parts += _figures(snapshot.report)
    parts += _faithfulness(snapshot.report)
    parts += _episodes(snapshot)
    parts.append("</main>")
    before, after = TEMPLATE.read_text(encoding="utf-8").split("__BODY__")
    return before.replace("__TITLE__", _e(snapshot.title)) + "\n".join(parts) + after


__all__ = ["EPISODE_COLUMNS", "index_page", "leaderboard_fragment"]
