/** The report as a chart (Chart.js, bundled): a line over `day` or `month`, bars otherwise. */
import {
  BarController,
  BarElement,
  CategoryScale,
  Chart,
  Legend,
  LinearScale,
  LineController,
  LineElement,
  PointElement,
  Tooltip,
} from 'chart.js';

Chart.register(
  BarController,
  BarElement,
  CategoryScale,
  Legend,
  LinearScale,
  LineController,
  LineElement,
  PointElement,
  Tooltip,
);

export interface ReportTable {
  readonly columnHeaders: readonly { name: string; columnType: string; dataType: string }[];
  readonly rows?: readonly (readonly (string | number | null)[])[];
}

const COLORS = ['#1a5fb4', '#c64600', '#26a269', '#813d9c', '#a51d2d', '#986a44'];
let current: Chart | undefined;

/** Draws `table` on `canvas`; returns the chart kind and a one-line description for screen readers. */
export function drawChart(canvas: HTMLCanvasElement, table: ReportTable): { kind: 'line' | 'bar'; summary: string } {
  current?.destroy();
  const dims = table.columnHeaders.filter((h) => h.columnType === 'DIMENSION');
  const metricCols = table.columnHeaders
    .map((h, i) => ({ h, i }))
    .filter(({ h }) => h.columnType === 'METRIC' && h.dataType !== 'STRING');
  const rows = table.rows ?? [];
  const kind = dims[0] && (dims[0].name === 'day' || dims[0].name === 'month') ? 'line' : 'bar';
  const labels = dims.length ? rows.map((r) => r.slice(0, dims.length).join(' · ')) : ['Total'];
  current = new Chart(canvas, {
    type: kind,
    data: {
      labels,
      datasets: metricCols.map(({ h, i }, n) => ({
        label: h.name,
        data: rows.map((r) => Number(r[i] ?? 0)),
        borderColor: COLORS[n % COLORS.length],
        backgroundColor: COLORS[n % COLORS.length],
        pointRadius: rows.length > 60 ? 0 : 2,
      })),
    },
    options: { animation: false, responsive: true, maintainAspectRatio: true, aspectRatio: 2.5 },
  });
  const what = metricCols.map(({ h }) => h.name).join(', ');
  const over = dims.map((d) => d.name).join(' and ') || 'the whole range';
  return { kind, summary: `${kind === 'line' ? 'Line' : 'Bar'} chart of ${what} by ${over}, ${rows.length} points.` };
}
