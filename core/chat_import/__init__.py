"""Bring a person's history in from the chat apps they used before Amber (issue 29).

One module per source, each a pure parser from the export's records to `Conversation`s of
`Turn`s (record.py): chatgpt.py, claude.py (Claude.ai), openwebui.py, claude_code.py. sources.py
opens a ZIP, folder or file and tells each file's source from its structure; jsonstream.py reads
the big JSON arrays one conversation at a time; importer.py writes the turns.
"""

from .importer import ImportReport, import_chats
from .record import CLIENTS, SOURCES, Conversation, Turn
from .sources import Export

__all__ = ["CLIENTS", "Conversation", "Export", "ImportReport", "SOURCES", "Turn", "import_chats"]
