import { useEffect, useRef } from 'react';
import { PARTICLE_COUNT } from '../../../core/domain/constants.ts';

type Particle = { x: number; y: number; vx: number; vy: number; r: number; alpha: number; cyan: boolean };

type State = 'running' | 'paused' | 'static';

/**
 * The landing page's animated background (spec §2: 250 particles), drawn on a canvas. It
 * runs only while it can be seen: it stops while the tab is hidden, while scrolled out of
 * view and while `paused`; under prefers-reduced-motion it draws one still frame. The
 * current state is on `data-state` for tests and curious people.
 */
export function ParticleField({
  paused = false,
  count = PARTICLE_COUNT,
}: {
  paused?: boolean;
  count?: number;
}) {
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const pausedRef = useRef(paused);
  const updateRef = useRef<() => void>(() => {});

  useEffect(() => {
    pausedRef.current = paused;
    updateRef.current();
  }, [paused]);

  useEffect(() => {
    const canvas = canvasRef.current;
    const context = canvas?.getContext('2d');
    if (!canvas || !context) return;
    const reducedMotion = window.matchMedia('(prefers-reduced-motion: reduce)');

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

    let width = 0;
    let height = 0;
    let linkDistance = 0;
    let visible = true;
    let frame = 0;
    let last = 0;

    function resize() {
      if (!canvas || !context) return;
      const rect = canvas.getBoundingClientRect();
      const ratio = Math.min(window.devicePixelRatio || 1, 2);
      width = Math.max(1, rect.width);
      height = Math.max(1, rect.height);
      canvas.width = Math.round(width * ratio);
      canvas.height = Math.round(height * ratio);
      context.setTransform(ratio, 0, 0, ratio, 0, 0);
      // Link neighbours at about the average spacing, so density looks alike on every screen.
      linkDistance = Math.min(120, Math.sqrt((width * height) / count) * 1.5);
      draw();
    }

    function draw() {
      if (!context) return;
      context.clearRect(0, 0, width, height);
      const limit = linkDistance * linkDistance;
      context.lineWidth = 0.6;
      for (let i = 0; i < particles.length; i++) {
        const a = particles[i]!;
        const ax = a.x * width;
        const ay = a.y * height;
        for (let j = i + 1; j < particles.length; j++) {
          const b = particles[j]!;
          const dx = ax - b.x * width;
          const dy = ay - b.y * height;
          const d2 = dx * dx + dy * dy;
          if (d2 < limit) {
            context.strokeStyle = `rgba(139, 108, 255, ${(0.16 * (1 - d2 / limit)).toFixed(3)})`;
            context.beginPath();
            context.moveTo(ax, ay);
            context.lineTo(b.x * width, b.y * height);
            context.stroke();
          }
        }
      }
      for (const p of particles) {
        context.fillStyle = p.cyan ? `rgba(34, 211, 238, ${p.alpha})` : `rgba(164, 139, 255, ${p.alpha})`;
        context.beginPath();
        context.arc(p.x * width, p.y * height, p.r, 0, Math.PI * 2);
        context.fill();
      }
    }

    function step(now: number) {
      const dt = Math.min(64, now - (last || now));
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
      frame = requestAnimationFrame(step);
    }

    function state(): State {
      if (reducedMotion.matches) return 'static';
      if (document.hidden || !visible || pausedRef.current) return 'paused';
      return 'running';
    }

    function update() {
      if (!canvas) return;
      const next = state();
      canvas.dataset.state = next;
      if (next === 'running' && frame === 0) {
        last = 0;
        frame = requestAnimationFrame(step);
      } else if (next !== 'running' && frame !== 0) {
        cancelAnimationFrame(frame);
        frame = 0;
      }
    }
    updateRef.current = update;

    const resizeObserver = new ResizeObserver(resize);
    resizeObserver.observe(canvas);
    const intersectionObserver = new IntersectionObserver((entries) => {
      visible = entries.some((entry) => entry.isIntersecting);
      update();
    });
    intersectionObserver.observe(canvas);
    document.addEventListener('visibilitychange', update);
    reducedMotion.addEventListener('change', update);
    resize();
    update();

    return () => {
      cancelAnimationFrame(frame);
      frame = 0;
      updateRef.current = () => {};
      resizeObserver.disconnect();
      intersectionObserver.disconnect();
      document.removeEventListener('visibilitychange', update);
      reducedMotion.removeEventListener('change', update);
    };
  }, [count]);

  return <canvas ref={canvasRef} className="particle-field" aria-hidden="true" data-count={count} />;
}
