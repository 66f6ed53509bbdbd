/** groups.update: not implemented yet (see the README's operation table); answers 501 notImplemented. */
import { notImplementedHandler } from '../_shared/not-implemented';

export const handler = notImplementedHandler('groups.update');
