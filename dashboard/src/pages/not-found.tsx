import { PageTitle } from '../components/bits';

export function NotFoundPage() {
  return (
    <>
      <PageTitle title="Page not found" />
      <p>
        There is no page here. <a href="/dashboard">Go to the overview</a>.
      </p>
    </>
  );
}
