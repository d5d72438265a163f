"""Kubernetes Status errors, shaped like k8s.io/apimachinery/pkg/api/errors."""


class ApiError(Exception):
    """An error answered as a metav1.Status object.

    details: dict of StatusDetails members (name, group, kind, uid, causes,
    retryAfterSeconds); None leaves `details` out, {} sends `"details":{}`.
    list_continue: a continue token put in the Status's ListMeta (410 on an
    expired continue token carries one).
    """

    def __init__(self, code, reason, message, details=None, list_continue=None):
        super().__init__(message)
        self.code = code
        self.reason = reason
        self.message = message
        self.details = details
        self.list_continue = list_continue

    def status(self):
        meta = {}
        if self.list_continue:
            meta["continue"] = self.list_continue
        st = {"kind": "Status", "apiVersion": "v1", "metadata": meta, "status": "Failure",
              "message": self.message}
        if self.reason:
            st["reason"] = self.reason
        if self.details is not None:
            st["details"] = self.details
        st["code"] = self.code
        return st

    def headers(self):
        """Extra response headers: the real server turns retryAfterSeconds into Retry-After."""
        if self.details and self.details.get("retryAfterSeconds", 0) > 0:
            return {"Retry-After": str(self.details["retryAfterSeconds"])}
        return {}


def _gr_details(gr, name):
    """StatusDetails for a group/resource pair; gr = (group, resource)."""
    group, resource = gr
    d = {"name": name}
    if group:
        d["group"] = group
    d["kind"] = resource
    return d


def gr_string(gr):
    """schema.GroupResource.String(): "pods", "deployments.apps"."""
    group, resource = gr
    return resource + "." + group if group else resource


def not_found(gr, name):
    return ApiError(404, "NotFound", '%s "%s" not found' % (gr_string(gr), name), _gr_details(gr, name))


def no_route():
    """What the real server's not-found handler answers for an unknown path or resource."""
    return ApiError(404, "NotFound", "the server could not find the requested resource", {})


def already_exists(gr, name):
    return ApiError(409, "AlreadyExists", '%s "%s" already exists' % (gr_string(gr), name),
                    _gr_details(gr, name))


def conflict(gr, name, why):
    return ApiError(409, "Conflict", 'Operation cannot be fulfilled on %s "%s": %s' % (gr_string(gr), name, why),
                    _gr_details(gr, name))


MODIFIED = "the object has been modified; please apply your changes to the latest version and try again"


def bad_request(message):
    return ApiError(400, "BadRequest", message)


def invalid(group, kind, name, causes):
    """422 like errors.NewInvalid; causes = [(field, type, detail_message)] where type is
    one of "Required", "Invalid", "Forbidden", "Unsupported", "Duplicate", "TooLong"."""
    qkind = kind + "." + group if group else kind
    reasons = {"Required": "FieldValueRequired", "Invalid": "FieldValueInvalid",
               "Forbidden": "FieldValueForbidden", "Unsupported": "FieldValueNotSupported",
               "Duplicate": "FieldValueDuplicate", "TooLong": "FieldValueTooLong"}
    titles = {"Required": "Required value", "Invalid": "Invalid value", "Forbidden": "Forbidden",
              "Unsupported": "Unsupported value", "Duplicate": "Duplicate value", "TooLong": "Too long"}
    cs, texts = [], []
    for field, typ, detail in causes:
        msg = titles[typ] + ": " + detail if detail else titles[typ]
        cs.append({"reason": reasons[typ], "message": msg, "field": field})
        texts.append(field + ": " + msg)
    text = texts[0] if len(texts) == 1 else "[" + ", ".join(texts) + "]"
    d = {"name": name}
    if group:
        d["group"] = group
    d["kind"] = kind
    d["causes"] = cs
    return ApiError(422, "Invalid", '%s "%s" is invalid: %s' % (qkind, name, text), d)


def invalid_value(value, detail):
    """The "Invalid value" text of field.Invalid: value printed Go-style (%q for strings)."""
    if isinstance(value, str):
        shown = '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    else:
        shown = str(value)
    return shown + ": " + detail if detail else shown


def list_options_invalid(causes):
    return invalid("meta.k8s.io", "ListOptions", "", causes)


def internal(message):
    return ApiError(500, "InternalError", "Internal error occurred: " + message,
                    {"causes": [{"message": message}]})


def unknown(code, message):
    """A plain Go error that reached the handler: no reason (StatusReasonUnknown)."""
    return ApiError(code, "", message)


def expired(message, list_continue=None):
    return ApiError(410, "Expired", message, None, list_continue)


def method_not_allowed():
    return ApiError(405, "MethodNotAllowed", "the server does not allow this method on the requested resource", {})


def unsupported_media_type(accepted):
    return ApiError(415, "UnsupportedMediaType",
                    "the body of the request was in an unknown format - accepted media types include: "
                    + ", ".join(accepted))


def too_large(message):
    return ApiError(413, "RequestEntityTooLarge", "Request entity too large: " + message)


def timeout(message, retry_after):
    return ApiError(504, "Timeout", "Timeout: " + message, {"retryAfterSeconds": retry_after})


def unauthorized():
    return ApiError(401, "Unauthorized", "Unauthorized")


# Reason and message the real server's generic error helpers use per HTTP code;
# used for injected failures (/_control/fail).
_INJECTED = {
    400: ("BadRequest", "the server rejected our request for an unknown reason (injected)"),
    401: ("Unauthorized", "Unauthorized"),
    403: ("Forbidden", "forbidden: injected failure"),
    404: ("NotFound", "the server could not find the requested resource (injected)"),
    405: ("MethodNotAllowed", "the server does not allow this method on the requested resource (injected)"),
    409: ("Conflict", "the server reported a conflict (injected)"),
    410: ("Expired", "the resource version is too old (injected)"),
    413: ("RequestEntityTooLarge", "Request entity too large: injected"),
    415: ("UnsupportedMediaType", "unsupported media type (injected)"),
    422: ("Invalid", "the server rejected our request due to an error in our request (injected)"),
    429: ("TooManyRequests", "Too many requests, please try again later."),
    500: ("InternalError", "Internal error occurred: injected failure"),
    503: ("ServiceUnavailable", "the server is currently unable to handle the request (injected)"),
    504: ("Timeout", "Timeout: the server was unable to return a response in the time allotted, "
                     "but may still be processing the request (injected)"),
}


def injected(code):
    reason, message = _INJECTED.get(code, ("InternalError" if code >= 500 else "",
                                           "injected failure with code %d" % code))
    details = {"retryAfterSeconds": 1} if code == 429 else {}
    return ApiError(code, reason, message, details)
