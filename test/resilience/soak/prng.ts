/** mulberry32: a small seeded PRNG, so a seed gives the same sequence on every machine. */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

export class Random {
  private readonly next: () => number;

  constructor(seed: number) {
    this.next = mulberry32(seed);
  }

  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }

  /** The item whose weight the draw lands in. */
  weighted<T extends string>(weights: Record<T, number>): T {
    const entries = Object.entries(weights) as Array<[T, number]>;
    let draw = this.next() * entries.reduce((sum, [, weight]) => sum + weight, 0);
    for (const [item, weight] of entries) {
      draw -= weight;
      if (draw < 0) return item;
    }
    return entries.at(-1)![0];
  }

  /**
   * Draws from `count` cases so that every case comes once before any comes again (a shuffled deck,
   * dealt again when empty): a run long enough to deal the deck once covers the whole catalogue.
   */
  deck(count: number): () => number {
    let cards: number[] = [];
    return () => {
      if (cards.length === 0) {
        cards = Array.from({ length: count }, (_, i) => i);
        for (let i = cards.length - 1; i > 0; i -= 1) {
          const j = this.int(0, i);
          [cards[i], cards[j]] = [cards[j]!, cards[i]!];
        }
      }
      return cards.pop()!;
    };
  }
}
