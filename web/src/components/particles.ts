/**
 * The particle field's drawing (spec §2: 250 particles drifting, neighbours linked), on any 2D
 * canvas context: the page's own canvas, or an OffscreenCanvas in a worker
 * (particles.worker.ts), where drawing never holds up the page. ParticleField decides when it
 * runs; this only draws.
 */

type Particle = { x: number; y: number; vx: number; vy: number; r: number; alpha: number; cyan: boolean };

export type ParticleContext = CanvasRenderingContext2D | OffscreenCanvasRenderingContext2D;

/** How the field is told to draw its next frame (requestAnimationFrame, or a timer without it). */
export type FrameScheduler = {
  request: (step: (now: number) => void) => number;
  cancel: (id: number) => void;
};

/** What the page tells the worker that draws the field. */
export type ParticleMessage =
  | { type: 'start'; canvas: OffscreenCanvas; count: number }
  | { type: 'resize'; width: number; height: number; ratio: number }
  | { type: 'run'; running: boolean };

// The dots drift a few pixels a second, so about 15 frames a second look as smooth as 60
// and cost a quarter of the work (a phone's, above all).
const FRAME_MS = 66;

export type ParticleDrawing = {
  /** Sizes the canvas (CSS pixels and device pixel ratio) and draws a frame. */
  resize: (width: number, height: number, ratio: number) => void;
  /** Animates, or holds the current frame. */
  setRunning: (running: boolean) => void;
};

export function createParticleDrawing(
  context: ParticleContext,
  count: number,
  frames: FrameScheduler,
): ParticleDrawing {
  // Positions are fractions of the canvas so a resize keeps the field evenly spread.
  const particles: Particle[] = Array.from({ length: count }, () => {
    const angle = Math.random() * Math.PI * 2;
    const speed = 0.000006 + Math.random() * 0.000016;
    return {
      x: Math.random(),
      y: Math.random(),
      vx: Math.cos(angle) * speed,
      vy: Math.sin(angle) * speed,
      r: 0.6 + Math.random() * 1.5,
      alpha: 0.25 + Math.random() * 0.55,
      cyan: Math.random() < 0.45,
    };
  });

  // Dots grouped by colour and (rounded) opacity, each group one fill.
  const groups = new Map<string, { style: string; particles: Particle[] }>();
  for (const p of particles) {
    const alpha = p.alpha.toFixed(1);
    const key = `${p.cyan}:${alpha}`;
    let group = groups.get(key);
    if (!group) {
      group = {
        style: p.cyan ? `rgba(34, 211, 238, ${alpha})` : `rgba(164, 139, 255, ${alpha})`,
        particles: [],
      };
      groups.set(key, group);
    }
    group.particles.push(p);
  }
  const dotGroups = [...groups.values()];

  let width = 0;
  let height = 0;
  let linkDistance = 0;
  let frame = 0;
  let last = 0;

  // Links and dots are drawn in a few batches (one path per opacity level) rather than one
  // stroke or fill per shape: thousands of separate strokes a frame made every frame a long
  // task on a phone (Lighthouse counted over 10 s of blocking time on the landing page).
  const LEVELS = 4;
  const NEIGHBOURS = [
    [1, 0],
    [-1, 1],
    [0, 1],
    [1, 1],
  ] as const;
  const links: number[][] = Array.from({ length: LEVELS }, () => []);

  function draw() {
    context.clearRect(0, 0, width, height);
    const limit = linkDistance * linkDistance;
    for (const level of links) level.length = 0;
    // Only neighbours can be linked: bucket the dots into cells one link long and compare
    // each with its own and the following cells (about a tenth of all pairs).
    const size = Math.max(1, linkDistance);
    const columns = Math.max(1, Math.ceil(width / size));
    const rows = Math.max(1, Math.ceil(height / size));
    const cells: number[][] = Array.from({ length: columns * rows }, () => []);
    for (let i = 0; i < particles.length; i++) {
      const p = particles[i]!;
      const cx = Math.min(columns - 1, Math.floor((p.x * width) / size));
      const cy = Math.min(rows - 1, Math.floor((p.y * height) / size));
      cells[cy * columns + cx]!.push(i);
    }
    const link = (a: Particle, b: Particle) => {
      const ax = a.x * width;
      const ay = a.y * height;
      const bx = b.x * width;
      const by = b.y * height;
      const dx = ax - bx;
      const dy = ay - by;
      const d2 = dx * dx + dy * dy;
      if (d2 < limit) {
        const level = Math.min(LEVELS - 1, Math.floor((1 - d2 / limit) * LEVELS));
        links[level]!.push(ax, ay, bx, by);
      }
    };
    for (let cy = 0; cy < rows; cy++) {
      for (let cx = 0; cx < columns; cx++) {
        const here = cells[cy * columns + cx]!;
        for (let m = 0; m < here.length; m++) {
          const a = particles[here[m]!]!;
          for (let n = m + 1; n < here.length; n++) link(a, particles[here[n]!]!);
          // Right, and the three cells below: each neighbouring pair of cells is visited once.
          for (const [ox, oy] of NEIGHBOURS) {
            const nx = cx + ox;
            const ny = cy + oy;
            if (nx < 0 || nx >= columns || ny >= rows) continue;
            for (const j of cells[ny * columns + nx]!) link(a, particles[j]!);
          }
        }
      }
    }
    context.lineWidth = 0.6;
    for (let level = 0; level < LEVELS; level++) {
      const lines = links[level]!;
      if (lines.length === 0) continue;
      context.strokeStyle = `rgba(139, 108, 255, ${(0.16 * ((level + 0.5) / LEVELS)).toFixed(3)})`;
      context.beginPath();
      for (let k = 0; k < lines.length; k += 4) {
        context.moveTo(lines[k]!, lines[k + 1]!);
        context.lineTo(lines[k + 2]!, lines[k + 3]!);
      }
      context.stroke();
    }
    for (const group of dotGroups) {
      context.fillStyle = group.style;
      context.beginPath();
      for (const p of group.particles) {
        const x = p.x * width;
        const y = p.y * height;
        context.moveTo(x + p.r, y);
        context.arc(x, y, p.r, 0, Math.PI * 2);
      }
      context.fill();
    }
  }

  function step(now: number) {
    if (!last || now - last >= FRAME_MS) {
      const dt = Math.min(200, now - (last || now));
      last = now;
      for (const p of particles) {
        p.x += p.vx * dt;
        p.y += p.vy * dt;
        if (p.x < 0 || p.x > 1) p.vx = -p.vx;
        if (p.y < 0 || p.y > 1) p.vy = -p.vy;
        p.x = Math.min(1, Math.max(0, p.x));
        p.y = Math.min(1, Math.max(0, p.y));
      }
      draw();
    }
    frame = frames.request(step);
  }

  return {
    resize(cssWidth, cssHeight, ratio) {
      width = Math.max(1, cssWidth);
      height = Math.max(1, cssHeight);
      context.canvas.width = Math.round(width * ratio);
      context.canvas.height = Math.round(height * ratio);
      context.setTransform(ratio, 0, 0, ratio, 0, 0);
      // Link neighbours at about the average spacing, so density looks alike on every screen.
      linkDistance = Math.min(120, Math.sqrt((width * height) / count) * 1.5);
      draw();
    },
    setRunning(running) {
      if (running && frame === 0) {
        last = 0;
        frame = frames.request(step);
      } else if (!running && frame !== 0) {
        frames.cancel(frame);
        frame = 0;
      }
    },
  };
}
