/**
 * `npm run report-table`: prints the report catalog as a Markdown table (functions/core/reports/catalog-table.ts),
 * to paste into the README's reports.query section when the catalog changes.
 */
import { catalogMarkdown } from '../../functions/core/reports/catalog-table';
import { DEMO_EXAMPLE_IDS } from './demo-world';

process.stdout.write(catalogMarkdown(DEMO_EXAMPLE_IDS));
