import { Link, useParams } from 'wouter';
import { Icon } from '../components/Icon.tsx';
import { usePageTitle } from '../components/pageTitle.ts';
import { BLOGS_INTRO, findBlogPost } from '../../../core/domain/content/blog.ts';
import { formatLongDate } from '../../../core/domain/time.ts';

const NOT_FOUND_MESSAGE = 'Sorry, article not found.';

function BackLink() {
  return (
    <Link href="/blogs" className="back-link">
      <Icon name="back" size={18} /> Back to blogs
    </Link>
  );
}

/** Spec §2 "Blogs": `/BlogPostPage/{id}` shows the post, or the not-found message and a way back. */
export default function BlogPost() {
  const { id = '' } = useParams<{ id: string }>();
  const post = findBlogPost(id);
  usePageTitle(post ? post.title : 'Article not found');

  if (!post) {
    return (
      <div className="container page article-missing">
        <h1>{NOT_FOUND_MESSAGE}</h1>
        <p className="muted">The link may be old or mistyped.</p>
        <BackLink />
      </div>
    );
  }

  return (
    <article className="container page article">
      <BackLink />
      <header className="article-head">
        <p className="post-meta muted">
          <span className="chip">{post.tag}</span>
          <span>
            <time dateTime={post.publishedOn}>{formatLongDate(`${post.publishedOn}T00:00:00+05:30`)}</time> ·{' '}
            {post.readMinutes} min read
          </span>
        </p>
        <h1>{post.title}</h1>
        <p className="lead">{post.excerpt}</p>
      </header>
      <div className="article-body">
        {post.paragraphs.map((paragraph) => (
          <p key={paragraph}>{paragraph}</p>
        ))}
      </div>
      <aside className="trial-banner" aria-labelledby="article-trial">
        <div>
          <h2 id="article-trial">{BLOGS_INTRO.trialCta}</h2>
          <p className="muted">{BLOGS_INTRO.trialText}</p>
        </div>
        <Link href="/trial" className="button primary">
          Start your trial
        </Link>
      </aside>
    </article>
  );
}
