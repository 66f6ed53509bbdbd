"""Drives the local API through Google's Python client (googleapiclient 1.7.12, Debian python3-googleapi), built
from the discovery document the API serves. Reads its settings as JSON on stdin, prints what it saw as JSON on
stdout; the vitest file test/integration/python-client.test.ts checks it. Every request goes through an HTTP object
that refuses any host but the loopback one, so the client's fallback to Google's own discovery host can never leave
the machine."""

import json
import sys
from urllib.parse import urlparse

import google_auth_httplib2
import httplib2
from google.oauth2.credentials import Credentials
from googleapiclient.discovery import build
from googleapiclient.errors import HttpError


class LoopbackOnlyHttp(httplib2.Http):
    def request(self, uri, *args, **kwargs):
        host = urlparse(uri).hostname
        if host not in ("127.0.0.1", "localhost"):
            raise RuntimeError("refused a request to a non-loopback host: %s" % host)
        return super().request(uri, *args, **kwargs)


def client(settings, api, version, token):
    http = google_auth_httplib2.AuthorizedHttp(Credentials(token), http=LoopbackOnlyHttp(timeout=30))
    return build(api, version, http=http, cache_discovery=False, discoveryServiceUrl=settings["discoveryServiceUrl"])


def main():
    settings = json.load(sys.stdin)
    out = {}

    yt = client(settings, "youtubeAnalytics", "v2", settings["reportsToken"])
    out["report"] = yt.reports().query(**settings["report"]).execute()
    out["reportRows"] = yt.reports().query(fields="rows", **settings["report"]).execute()

    try:
        yt.reports().query(**dict(settings["report"], metrics="nope")).execute()
        out["error"] = None
    except HttpError as e:
        out["error"] = {"status": e.resp.status, "body": json.loads(e.content.decode("utf-8"))}

    groups = client(settings, "youtubeAnalytics", "v2", settings["groupsToken"])
    created = groups.groups().insert(body={"snippet": {"title": "From Python"}}).execute()
    updated = groups.groups().update(body={"id": created["id"], "snippet": {"title": "Renamed from Python"}}).execute()
    item = groups.groupItems().insert(
        body={"groupId": created["id"], "resource": {"kind": "youtube#video", "id": settings["videoId"]}}
    ).execute()
    listed = groups.groups().list(id=created["id"]).execute()
    mine = groups.groups().list(mine=True).execute()
    items = groups.groupItems().list(groupId=created["id"]).execute()
    deleted_item = groups.groupItems().delete(id=item["id"]).execute()
    items_after = groups.groupItems().list(groupId=created["id"]).execute()
    deleted_group = groups.groups().delete(id=created["id"]).execute()
    listed_after = groups.groups().list(id=created["id"]).execute()
    out["groups"] = {
        "created": created,
        "updated": updated,
        "item": item,
        "listed": listed,
        "mine": mine,
        "items": items,
        "deletedItem": deleted_item,
        "itemsAfter": items_after,
        "deletedGroup": deleted_group,
        "listedAfter": listed_after,
    }

    admin = client(settings, "analyticsadmin", "v1alpha", settings["adminToken"])
    out["property"] = admin.properties().get(name="properties/1000").execute()
    try:
        admin.properties().get(name="properties/2000").execute()
        out["propertyError"] = None
    except HttpError as e:
        out["propertyError"] = {"status": e.resp.status, "body": json.loads(e.content.decode("utf-8"))}

    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
