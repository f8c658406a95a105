"""Offline OCR for scanned PDFs and images: engines, page images, text with word boxes."""
