import type { APIGatewayProxyResult } from 'aws-lambda';

const JSON_TYPE = 'application/json; charset=UTF-8';

export const jsonResult = (
  statusCode: number,
  body: unknown,
  headers: Record<string, string> = {},
): APIGatewayProxyResult => ({
  statusCode,
  headers: { 'Content-Type': JSON_TYPE, 'Cache-Control': 'private, no-store', ...headers },
  body: JSON.stringify(body),
});

/** 204 No Content: the wire form of Google's EmptyResponse for deletes. */
export const noContent = (): APIGatewayProxyResult => ({ statusCode: 204, headers: {}, body: '' });
