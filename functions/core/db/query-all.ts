/** Every item a Query matches, page after page (reads whose answer is small but may, in principle, span pages). */
import { type DynamoDBDocumentClient, QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';

type QueryInput = Omit<QueryCommandInput, 'ExclusiveStartKey'>;
type Key = Record<string, unknown>;

/**
 * Runs a Query page after page from `start` (the key a page ended on; the beginning when undefined), handing each
 * page's items and the key it ended on to `onPage`. `onPage` returning false stops the read after that page. Returns
 * the key to go on from: undefined once the Query is read to its end.
 */
export async function queryPages(
  db: DynamoDBDocumentClient,
  input: QueryInput,
  onPage: (items: Record<string, unknown>[], next: Key | undefined) => unknown,
  start?: Key,
): Promise<Key | undefined> {
  let ExclusiveStartKey = start;
  do {
    const page = await db.send(new QueryCommand({ ...input, ExclusiveStartKey }));
    ExclusiveStartKey = page.LastEvaluatedKey;
    if (onPage(page.Items ?? [], ExclusiveStartKey) === false) break;
  } while (ExclusiveStartKey);
  return ExclusiveStartKey;
}

export async function queryAll(db: DynamoDBDocumentClient, input: QueryInput): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  await queryPages(db, input, (page) => items.push(...page));
  return items;
}
