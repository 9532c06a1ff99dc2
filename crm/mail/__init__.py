"""Raw inbound mail turned into plain facts (sender, text, attachments, hash); imports no Django.

`parse` builds a `ParsedMail` from raw bytes out of `headers`, `mime` (the part tree),
`charsets` (decoding and guessing) and `text` (clean-up, HTML to text); `files` reads raw
messages from `.eml` files, folders and mbox files.
"""

from crm.mail.files import mail_messages_count, mail_messages_from_paths
from crm.mail.parse import CONTENT_HASH_VERSION, ParsedMail, mail_parse

__all__ = [
    "CONTENT_HASH_VERSION",
    "ParsedMail",
    "mail_messages_count",
    "mail_messages_from_paths",
    "mail_parse",
]
