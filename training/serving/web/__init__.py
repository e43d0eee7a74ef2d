"""The web front end: ``python -m training.web`` serves a page that plays every suite game in a
browser against the suite's bots, over a WebSocket that speaks the bot protocol
(``docs/web.md``). ``app`` is the server (Starlette, run by uvicorn); ``static/`` is the page
(plain HTML, CSS and JavaScript modules, no build step).
"""
