from .ctx import after_this_request as after_this_request
from .ctx import has_request_context
