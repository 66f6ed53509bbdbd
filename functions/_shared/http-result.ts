/**
 * What a handler answers, before the wrapper renders it: a JSON value (rendered once, with the caller's `fields` and
 * `prettyPrint`), a finished text body (a page), or nothing (204).
 */
import type { APIGatewayProxyResult } from 'aws-lambda';
import { applyFields, type Selection } from './field-selector';

const JSON_TYPE = 'application/json; charset=UTF-8';

export interface ApiResponse {
  readonly statusCode: number;
  readonly headers: Readonly<Record<string, string>>;
  /** A JSON document; absent for 204 and for `text` answers. */
  readonly json?: unknown;
  /** A finished body with its own Content-Type in `headers`. */
  readonly text?: string;
}

export const jsonResult = (statusCode: number, body: unknown, headers: Record<string, string> = {}): ApiResponse => ({
  statusCode,
  headers: { 'Content-Type': JSON_TYPE, 'Cache-Control': 'private, no-store', ...headers },
  json: body,
});

/** A finished text body (the Query Explorer page). */
export const textResult = (statusCode: number, body: string, headers: Record<string, string>): ApiResponse => ({
  statusCode,
  headers,
  text: body,
});

/** 204 No Content: the wire form of Google's EmptyResponse for deletes. */
export const noContent = (): ApiResponse => ({ statusCode: 204, headers: {} });

export interface RenderOptions {
  /** Google pretty-prints by default; `prettyPrint=false` gives compact JSON. */
  readonly prettyPrint: boolean;
  /** Applied to successful JSON answers only; errors are always whole. */
  readonly fields?: Selection;
  readonly extraHeaders?: Readonly<Record<string, string>>;
}

/** The API Gateway proxy result of an answer. */
export function render(res: ApiResponse, options: RenderOptions = { prettyPrint: true }): APIGatewayProxyResult {
  const headers = { ...res.headers, ...options.extraHeaders };
  if (res.json === undefined) return { statusCode: res.statusCode, headers, body: res.text ?? '' };
  const ok = res.statusCode >= 200 && res.statusCode < 300;
  const value = ok && options.fields ? applyFields(res.json, options.fields) : res.json;
  return {
    statusCode: res.statusCode,
    headers,
    body: options.prettyPrint ? JSON.stringify(value, null, 2) : JSON.stringify(value),
  };
}
