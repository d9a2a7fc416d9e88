"""Make small PDFs with a real text layer for the tests (no binary files in the repository).

Each page's text is drawn with a Type0 font whose ``ToUnicode`` map sends glyph IDs to Unicode --
what PDF writers emit for any script, Japanese included -- so pypdf extracts exactly the text given.
No glyph outlines are embedded (the page would render blank), which the text layer does not need.
"""

from pypdf import PdfWriter
from pypdf.generic import ArrayObject, DecodedStreamObject, DictionaryObject, NameObject, NumberObject, TextStringObject


def _utf16_hex(ch: str) -> str:
    data = ch.encode("utf-16-be")
    return "".join(f"{int.from_bytes(data[i:i + 2], 'big'):04X}" for i in range(0, len(data), 2))


def make_pdf(pages: list[str], path, *, title: str | None = None) -> None:
    chars = sorted({c for text in pages for c in text if c != "\n"})
    cid = {c: i + 1 for i, c in enumerate(chars)}
    writer = PdfWriter()
    cmap = ["/CIDInit /ProcSet findresource begin", "12 dict begin", "begincmap", "/CMapName /Test def",
            "/CMapType 2 def", "1 begincodespacerange", "<0000> <FFFF>", "endcodespacerange"]
    entries = [f"<{cid[c]:04X}> <{_utf16_hex(c)}>" for c in chars]
    for i in range(0, len(entries), 100):
        chunk = entries[i:i + 100]
        cmap += [f"{len(chunk)} beginbfchar", *chunk, "endbfchar"]
    cmap += ["endcmap", "CMapName currentdict /CMap defineresource pop", "end", "end"]
    to_unicode = DecodedStreamObject()
    to_unicode.set_data("\n".join(cmap).encode())
    system_info = DictionaryObject({NameObject("/Registry"): TextStringObject("Adobe"),
                                    NameObject("/Ordering"): TextStringObject("Identity"),
                                    NameObject("/Supplement"): NumberObject(0)})
    descendant = DictionaryObject({NameObject("/Type"): NameObject("/Font"), NameObject("/Subtype"): NameObject("/CIDFontType2"),
                                   NameObject("/BaseFont"): NameObject("/TestFont"),
                                   NameObject("/CIDSystemInfo"): system_info, NameObject("/DW"): NumberObject(1000)})
    font = DictionaryObject({NameObject("/Type"): NameObject("/Font"), NameObject("/Subtype"): NameObject("/Type0"),
                             NameObject("/BaseFont"): NameObject("/TestFont"), NameObject("/Encoding"): NameObject("/Identity-H"),
                             NameObject("/DescendantFonts"): ArrayObject([writer._add_object(descendant)]),
                             NameObject("/ToUnicode"): writer._add_object(to_unicode)})
    font_ref = writer._add_object(font)
    for text in pages:
        page = writer.add_blank_page(595, 842)
        ops = ["BT", "/F1 12 Tf", "14 TL", "50 800 Td"]
        for line in text.split("\n"):
            ops.append("<" + "".join(f"{cid[c]:04X}" for c in line) + "> Tj T*")
        ops.append("ET")
        content = DecodedStreamObject()
        content.set_data("\n".join(ops).encode())
        page[NameObject("/Contents")] = writer._add_object(content)
        page[NameObject("/Resources")] = DictionaryObject({NameObject("/Font"): DictionaryObject({NameObject("/F1"): font_ref})})
    if title:
        writer.add_metadata({"/Title": title})
    with open(path, "wb") as f:
        writer.write(f)
