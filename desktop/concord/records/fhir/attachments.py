"""Documents carried by FHIR resources: DocumentReference content and DiagnosticReport
presentedForm attachments (inline base64 data, or a Binary in the bundle or contained).
Text is kept exactly (UTF-8, CRLF -> LF) as a document of kind txt or md (free text, like
a letter imported on its own; kind "fhir" is only for rendered resources); PDFs are read
page by page, with OCR for pages without a text layer; images are read by OCR."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from concord.domain.record import DocumentKind, SourceDocument
from concord.errors import InputError
from concord.records.fhir.parse import Resources
from concord.records.fhir.render import xhtml_text
from concord.records.fhir.text import concept_name, one_line, reference_text, when
from concord.records.files import MAX_RECORD_BYTES, decode_text
from concord.records.ocr.engines import ocr_engine
from concord.records.ocr.images import image_pages
from concord.records.ocr.scan import assemble, ocr_pages
from concord.records.pdf import pdf_document

TEXT_TYPES = frozenset({"text/plain", "text/markdown", "text/x-markdown"})
HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
IMAGE_TYPES = frozenset({"image/png", "image/jpeg", "image/jpg", "image/tiff", "image/tif"})


def _content(
    attachment: Any, owner: Any, resources: Resources, where: str, subject: Path | str
) -> tuple[bytes, str]:
    """(bytes, content type) of an attachment: inline data or a Binary it points at."""
    content_type = (attachment.contentType or "").split(";")[0].strip().lower()
    if attachment.data is not None:
        data = bytes(attachment.data)
    elif attachment.url:
        target = resources.resolve(attachment.url, owner)
        if target is None or target.get_resource_type() != "Binary":
            raise InputError(
                f"{where}: attachment {attachment.url!r} is not in the bundle "
                "(Concord reads no server)",
                subject=subject,
            )
        data = bytes(target.data or b"")
        content_type = content_type or (target.contentType or "").split(";")[0].strip().lower()
    else:
        raise InputError(f"{where}: attachment has neither data nor url", subject=subject)
    if len(data) > MAX_RECORD_BYTES:
        raise InputError(f"{where}: attachment is over the size limit", subject=subject)
    if not data:
        raise InputError(f"{where}: attachment is empty", subject=subject)
    return data, content_type


def attachment_document(
    attachment: Any,
    owner: Any,
    source_id: str,
    title: str,
    resources: Resources,
    subject: Path | str,
) -> SourceDocument:
    data, content_type = _content(attachment, owner, resources, source_id, subject)
    label = Path(f"{subject}#{source_id}")
    if content_type in TEXT_TYPES or (not content_type and not data.startswith(b"%PDF")):
        text = decode_text(data, label)
        if not text.strip():
            raise InputError(f"{source_id}: attachment has no text", subject=subject)
        kind = DocumentKind.MD if "markdown" in content_type else DocumentKind.TXT
        return SourceDocument(source_id=source_id, title=title, kind=kind, text=text)
    if content_type in HTML_TYPES:
        text = xhtml_text(decode_text(data, label))
        if not text.strip():
            raise InputError(f"{source_id}: HTML attachment has no text", subject=subject)
        return SourceDocument(
            source_id=source_id, title=title, kind=DocumentKind.TXT, text=text + "\n"
        )
    if content_type == "application/pdf" or data.startswith(b"%PDF"):
        return pdf_document(data, source_id, title, label)
    if content_type in IMAGE_TYPES:
        engine = ocr_engine()
        pages = ocr_pages(image_pages(data, label), engine)
        return assemble(source_id, title, pages, engine, label, typed_kind=DocumentKind.IMAGE)
    raise InputError(
        f"{source_id}: attachment of type {content_type!r} cannot be read "
        "(text, HTML, PDF or an image)",
        subject=subject,
    )


def document_reference_documents(
    entry_id: str, reference: Any, resources: Resources, subject: Path | str
) -> list[SourceDocument]:
    """One document per attachment of a DocumentReference ('DocumentReference/x', then
    'DocumentReference/x#2' ...)."""
    kind = concept_name(reference.type) or one_line(reference.description) or "Document"
    authors = ", ".join(reference_text(a) for a in reference.author or () if reference_text(a))
    dated = when(reference.date)[:10]
    title = " ".join(p for p in (kind, dated, f"({authors})" if authors else "") if p)
    documents = []
    for index, content in enumerate(reference.content or ()):
        source_id = entry_id if index == 0 else f"{entry_id}#{index + 1}"
        documents.append(
            attachment_document(content.attachment, reference, source_id, title, resources, subject)
        )
    return documents


def presented_form_documents(
    entry_id: str, report: Any, resources: Resources, subject: Path | str
) -> list[SourceDocument]:
    name = concept_name(report.code, "Report")
    documents = []
    for index, attachment in enumerate(report.presentedForm or ()):
        source_id = f"{entry_id}#form{index + 1}"
        title = f"{name} {when(report.effectiveDateTime)[:10]} (presented form)".replace("  ", " ")
        documents.append(
            attachment_document(attachment, report, source_id, title, resources, subject)
        )
    return documents
