/** Every item a Query matches, page after page (reads whose answer is small but may, in principle, span pages). */
import { type DynamoDBDocumentClient, QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';

type QueryInput = Omit<QueryCommandInput, 'ExclusiveStartKey'>;

/** Runs a Query page after page, handing each page's items to `onPage` (which may count or stream them). */
export async function queryPages(
  db: DynamoDBDocumentClient,
  input: QueryInput,
  onPage: (items: Record<string, unknown>[]) => void,
): Promise<void> {
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await db.send(new QueryCommand({ ...input, ExclusiveStartKey }));
    onPage(page.Items ?? []);
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
}

export async function queryAll(db: DynamoDBDocumentClient, input: QueryInput): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  await queryPages(db, input, (page) => items.push(...page));
  return items;
}
