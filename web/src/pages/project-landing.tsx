// Where a project opens: its Problems when any is open or regressed (what needs someone now),
// otherwise its journeys.
import { useEffect, useState } from 'react';
import { query, request, type Page, type Problem, type Project } from '../api.ts';
import { ErrorMessage, Loading } from '../components/common.tsx';
import { navigate } from '../router.tsx';

export function ProjectLanding({ project }: { project: Project }) {
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    const controller = new AbortController();
    request<Page<Problem>>(`/v1/projects/${project.id}/problems` + query({ status: 'open,regressed', limit: 1 }), { signal: controller.signal }).then(
      (page) => navigate(`/projects/${project.id}/${page.items.length > 0 ? 'problems' : 'journeys'}`, { replace: true }),
      (e: unknown) => {
        if (!controller.signal.aborted) setError(e);
      },
    );
    return () => controller.abort();
  }, [project.id]);
  return error ? <ErrorMessage error={error} /> : <Loading what="the project" />;
}
