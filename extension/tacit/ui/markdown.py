"""A SKILL.md as HTML: headings, lists, code blocks, paragraphs, inline code.

Design notes: docs/design/search.md#tacituimarkdown"""

from __future__ import annotations

import re
from html import escape

from markupsafe import Markup

_INLINE_CODE = re.compile(r"`([^`]+)`")
_STRONG = re.compile(r"\*\*([^*]+)\*\*")
_LIST = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+(.*)$")


def _inline(text: str) -> str:
    out = escape(text, quote=True)
    out = _INLINE_CODE.sub(lambda m: f"<code>{m.group(1)}</code>", out)
    return _STRONG.sub(lambda m: f"<strong>{m.group(1)}</strong>", out)


def render(text: str) -> Markup:
    """``text`` (Markdown, frontmatter included) as safe HTML."""
    lines = text.replace("\r\n", "\n").split("\n")
    html: list[str] = []
    if lines and lines[0].strip() == "---":  # frontmatter: shown as it is, in a block
        end = next((i for i in range(1, len(lines)) if lines[i].strip() == "---"), None)
        if end is not None:
            html.append(f'<pre class="front">{escape(chr(10).join(lines[1:end]))}</pre>')
            lines = lines[end + 1:]
    para: list[str] = []
    items: list[str] = []
    code: list[str] | None = None

    def flush() -> None:
        if para:
            html.append(f"<p>{_inline(' '.join(para))}</p>")
            para.clear()
        if items:
            html.append("<ul>" + "".join(f"<li>{_inline(i)}</li>" for i in items) + "</ul>")
            items.clear()

    for line in lines:
        if code is not None:
            if line.strip().startswith("```"):
                html.append(f"<pre><code>{escape(chr(10).join(code))}</code></pre>")
                code = None
            else:
                code.append(line)
            continue
        if line.strip().startswith("```"):
            flush()
            code = []
            continue
        heading = re.match(r"^(#{1,6})\s+(.*)$", line)
        listed = _LIST.match(line)
        if heading:
            flush()
            level = min(6, len(heading.group(1)) + 1)  # the page's title is the h1
            html.append(f"<h{level}>{_inline(heading.group(2))}</h{level}>")
        elif listed:
            if para:
                flush()
            items.append(listed.group(1))
        elif not line.strip():
            flush()
        elif items and line.startswith((" ", "\t")):
            items[-1] += " " + line.strip()
        else:
            if items:
                flush()
            para.append(line.strip())
    if code is not None:
        html.append(f"<pre><code>{escape(chr(10).join(code))}</code></pre>")
    flush()
    return Markup("\n".join(html))
