"""A small PDF of monospaced text pages, with the standard library only (for the printable score sheet).

The text is set in the PDF's built-in Courier with the Windows-1252 character set; a character
outside it is printed as ``?`` (the HTML score sheet keeps every character).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class PageSetup:
    """A4 portrait, 9-point Courier: 93 characters a line, 70 lines a page."""

    width: float = 595.0
    height: float = 842.0
    margin: float = 40.0
    font_size: float = 9.0
    leading: float = 11.0

    @property
    def lines_per_page(self) -> int:
        return int((self.height - 2 * self.margin) // self.leading)


def _pdf_text(line: str) -> bytes:
    raw = line.encode("cp1252", errors="replace")
    return raw.replace(b"\\", b"\\\\").replace(b"(", b"\\(").replace(b")", b"\\)")


def text_pdf(pages: Sequence[Sequence[str]], title: str = "", setup: PageSetup | None = None) -> bytes:
    """A PDF with one page per item of ``pages`` (each a list of lines; long pages are split)."""
    setup = setup or PageSetup()
    per_page = setup.lines_per_page
    flat: list[list[str]] = []
    for page in pages or [[]]:
        lines = list(page)
        for start in range(0, max(len(lines), 1), per_page):
            flat.append(lines[start : start + per_page])
    objects: list[bytes] = []  # object n is objects[n - 1]
    objects.append(b"<< /Type /Catalog /Pages 2 0 R >>")
    objects.append(b"")  # the page tree, filled in below
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Courier /Encoding /WinAnsiEncoding >>")
    info = b"<< /Title (" + _pdf_text(title) + b") /Producer (nardy) >>"
    objects.append(info)
    kids = []
    for lines in flat:
        top = setup.height - setup.margin - setup.font_size
        body = [
            b"BT",
            f"/F1 {setup.font_size:g} Tf {setup.leading:g} TL".encode(),
            f"{setup.margin:g} {top:g} Td".encode(),
        ]
        for line in lines:
            body.append(b"(" + _pdf_text(line) + b") Tj T*")
        body.append(b"ET")
        stream = b"\n".join(body)
        objects.append(b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream")
        content = len(objects)
        objects.append(
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %d %d] /Resources << /Font << /F1 3 0 R >> >> "
            b"/Contents %d 0 R >>" % (int(setup.width), int(setup.height), content)
        )
        kids.append(len(objects))
    objects[1] = b"<< /Type /Pages /Kids [%s] /Count %d >>" % (
        b" ".join(b"%d 0 R" % k for k in kids),
        len(kids),
    )
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body_bytes in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body_bytes + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for offset in offsets:
        out += b"%010d 00000 n \n" % offset
    out += b"trailer\n<< /Size %d /Root 1 0 R /Info 4 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return bytes(out)
