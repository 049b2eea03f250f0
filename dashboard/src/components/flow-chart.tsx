import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import type { Overview } from '../api-types';
import { day, naira } from '../format';

type Day = Overview['flows']['days'][number];

const INFLOW = '#1a7f37';
const shortDay = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', timeZone: 'Africa/Lagos' });
const OUTFLOW = '#b42318';

/**
 * 30 days of money in and out as paired bars (uPlot draws on a canvas, sized to its container).
 * The canvas is decoration for sighted users; the same numbers are in the table below it.
 */
export function FlowChart(props: { days: Day[] }) {
  const host = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = host.current;
    if (!element) return undefined;
    const xs = props.days.map((entry) => Date.parse(`${entry.day}T12:00:00+01:00`) / 1000);
    const data: uPlot.AlignedData = [xs, props.days.map((entry) => Number(entry.inflow)), props.days.map((entry) => Number(entry.outflow))];
    const bars = (align: -1 | 1) => uPlot.paths.bars!({ size: [0.4, 24], align });
    // A label under every fifth day, counted back from today, at the day's own bars.
    const labelled = xs.filter((_x, index) => (xs.length - 1 - index) % 5 === 0);
    const chart = new uPlot(
      {
        width: element.clientWidth || 600,
        height: 240,
        tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), 'Africa/Lagos'),
        legend: { show: true },
        cursor: { points: { show: false } },
        scales: { x: { time: true, range: (_u, min, max) => [min - 43_200, max + 43_200] } },
        axes: [
          {
            stroke: '#3d4b5c',
            grid: { show: false },
            splits: () => labelled,
            values: (_u, ticks) => ticks.map((tick) => shortDay.format(new Date(tick * 1000))),
          },
          {
            stroke: '#3d4b5c',
            size: 80,
            values: (_u, ticks) => ticks.map((tick) => `₦${Intl.NumberFormat('en-NG', { notation: 'compact' }).format(tick)}`),
          },
        ],
        series: [
          { label: 'Day', value: (_u, ts) => (ts === null ? '' : day(new Date(ts * 1000 + 3_600_000).toISOString().slice(0, 10))) },
          {
            label: 'Money in',
            stroke: INFLOW,
            fill: INFLOW,
            paths: bars(1),
            points: { show: false },
            value: (_u, v) => (v === null ? '' : naira(v.toFixed(2))),
          },
          {
            label: 'Money out',
            stroke: OUTFLOW,
            fill: OUTFLOW,
            paths: bars(-1),
            points: { show: false },
            value: (_u, v) => (v === null ? '' : naira(v.toFixed(2))),
          },
        ],
      },
      data,
      element,
    );
    const resize = new ResizeObserver(() => chart.setSize({ width: element.clientWidth, height: 240 }));
    resize.observe(element);
    return () => {
      resize.disconnect();
      chart.destroy();
    };
  }, [props.days]);

  return <div ref={host} class="flow-chart" aria-hidden="true" />;
}
