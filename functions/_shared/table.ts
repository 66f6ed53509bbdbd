/** The table the functions of this container use: one shared client, the name from the environment. */
import { documentClient } from '../core/db/document-client';
import type { TableContext } from '../core/directory/directory-repository';
import * as env from './env';

export const tableContext = (): TableContext => ({ db: documentClient(), tableName: env.tableName() });
