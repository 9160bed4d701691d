"""What `make run` serves (`interfaces/dashboard_run.py` runs `streamlit run serve.py`): the dashboard
(`app.py`) and, for every URL no route answers, a page saying the token is required.

On loopback without sign-in every route of the dashboard is under its token (`server.baseUrlPath`, see
`blastshield_core/base/dashboard_token.py`), so a request without it (a page, the session's websocket, an
upload) matches no route: it gets this fixed page, status 404, and no Streamlit session is made for it.
"""

import streamlit as st
from starlette.requests import Request
from starlette.responses import HTMLResponse

NOT_SERVED_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>BlastShield: token required</title></head>
<body style="font-family: sans-serif; margin: 3rem">
<h1>BlastShield: token required</h1>
<p>This dashboard belongs to the user who started it and is served only under the URL with its token.
Open the URL that <code>make run</code> printed in the terminal that started it (the token is kept in a
file only that user can read).</p>
</body></html>
"""


async def token_required(request: Request, exc: Exception) -> HTMLResponse:
    return HTMLResponse(NOT_SERVED_PAGE, status_code=404)


app = st.App("app.py", exception_handlers={404: token_required})
