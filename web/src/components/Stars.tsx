import type { Rating } from '../../../core/domain/content/blog.ts';

const STAR = 'M12 2.6l2.85 5.9 6.5.9-4.75 4.55 1.15 6.45L12 17.3l-5.75 3.1 1.15-6.45L2.65 9.4l6.5-.9z';

/** A 1–5 star rating drawn as stars, read as "4 out of 5 stars". */
export function Stars({ rating }: { rating: Rating }) {
  return (
    <span className="stars" role="img" aria-label={`${rating} out of 5 stars`}>
      {[1, 2, 3, 4, 5].map((n) => (
        <svg
          key={n}
          width="18"
          height="18"
          viewBox="0 0 24 24"
          aria-hidden="true"
          focusable="false"
          className={n <= rating ? 'star on' : 'star'}
        >
          <path d={STAR} />
        </svg>
      ))}
    </span>
  );
}
