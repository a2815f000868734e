"""Exceptions of the multitouchd client."""


class ProtocolError(Exception):
    """The daemon sent something that is not a protocol message line."""


class ReplyError(ProtocolError):
    """The daemon answered with an error message (bad request, unknown device, a fatal error...).

    `code`, `message`, `fatal` and `id` are the error's fields (docs/PROTOCOL.md, "Errors").
    """

    def __init__(self, error):
        self.error = error
        self.code = error.get("code")
        self.message = error.get("message")
        self.fatal = bool(error.get("fatal"))
        self.id = error.get("id")
        super().__init__("%s: %s" % (self.code, self.message))


class ConnectionClosed(ConnectionError):
    """The daemon closed the connection (it stopped, or it sent a fatal error)."""
