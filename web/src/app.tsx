// The shell: session check, project selection from the path, one page per route.
import { AlertRulesPage } from './pages/alert-rules.tsx';
import { ExpectationsPage } from './pages/expectations.tsx';
import { useCallback, useEffect, useState } from 'react';
import { request, setUnauthorizedHandler, type Project, type SessionInfo } from './api.ts';
import { SessionContext, useAllowed } from './roles.tsx';
import { RoleNeeded } from './components/role-needed.tsx';
import { AccountMenu } from './components/account-menu.tsx';
import { TimeZoneToggle } from './components/time-zone-toggle.tsx';
import { useTimeZone } from './lib/time-zone.ts';
import { AccountPage } from './pages/account.tsx';
import { SetPasswordPage } from './pages/set-password.tsx';
import { ErrorMessage, Loading } from './components/common.tsx';
import { UserText } from './components/user-text.tsx';
import { Link, navigate, useLocation } from './router.tsx';
import { SignInPage } from './pages/sign-in.tsx';
import { ProjectsPage } from './pages/projects.tsx';
import { JourneysPage } from './pages/journeys.tsx';
import { ComparePage } from './pages/compare.tsx';
import { SearchPage } from './pages/search.tsx';
import { JourneyPage } from './pages/journey.tsx';
import { HeaderSearch } from './pages/header-search.tsx';
import { NotFound, PROJECT_NOT_FOUND } from './pages/not-found.tsx';
import { BuildFooter } from './components/build-footer.tsx';
import { SettingsRoute } from './pages/settings/settings-route.tsx';
import { ProblemsPage } from './pages/problems.tsx';
import { ProblemPage } from './pages/problem.tsx';
import { ProjectLanding } from './pages/project-landing.tsx';
import { ProblemJourneysPage } from './pages/problem-journeys.tsx';

type Session = 'checking' | 'signed-in' | 'signed-out';

function signInPath(): string {
  const next = location.pathname + location.search;
  return '/sign-in' + (next.startsWith('/ui/') && !next.startsWith('/ui/sign-in') ? '?next=' + encodeURIComponent(next) : '');
}

export function App() {
  const loc = useLocation();
  const outside = loc.path === '/sign-in' || loc.path === '/set-password';
  const [session, setSession] = useState<Session>(outside ? 'signed-out' : 'checking');
  const [info, setInfo] = useState<SessionInfo | null>(null);

  useEffect(() => {
    setUnauthorizedHandler(() => {
      setSession('signed-out');
      navigate(signInPath(), { replace: true });
    });
    if (outside) return;
    request<SessionInfo>('/session', { quietUnauthorized: true }).then(
      (data) => {
        setInfo(data);
        setSession('signed-in');
      },
      () => {
        setSession('signed-out');
        navigate(signInPath(), { replace: true });
      },
    );
    // Checked once at load; later 401s come through the handler above.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  const signedIn = () => {
    request<SessionInfo>('/session').then((data) => {
      setInfo(data);
      setSession('signed-in');
    }, () => setSession('signed-out'));
  };
  if (loc.path === '/set-password') return <SetPasswordPage />;
  if (loc.path === '/sign-in') return <SignInPage onSignedIn={signedIn} />;
  if (session !== 'signed-in' || info === null) return <main className="centered"><Loading what="your session" /></main>;
  return (
    <SessionContext.Provider value={info}>
      <SignedIn />
    </SessionContext.Provider>
  );
}

function SignedIn() {
  const loc = useLocation();
  useTimeZone();
  const [projects, setProjects] = useState<Project[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  // Settings creates and renames projects: it asks for the list again.
  const loadProjects = useCallback(() => {
    request<{ items: Project[] }>('/v1/projects').then((data) => setProjects(data.items), setError);
  }, []);
  useEffect(loadProjects, [loadProjects]);

  const match = /^\/projects\/([^/]+)(\/.*)?$/.exec(loc.path);
  const project = match && projects ? (projects.find((p) => p.id === match[1]) ?? null) : null;

  useEffect(() => {
    if (projects && projects.length === 1 && !match && loc.path === '/') navigate(`/projects/${projects[0]!.id}`, { replace: true });
  }, [projects, match, loc.path]);

  const signOut = async () => {
    await request('/session', { method: 'DELETE' }).catch(() => undefined);
    navigate('/sign-in', { replace: true });
  };

  let page;
  if (error) page = <ErrorMessage error={error} />;
  else if (!projects) page = <Loading what="projects" />;
  else if (loc.path === '/settings' || loc.path.startsWith('/settings/')) page = <SettingsRoute path={loc.path} params={loc.params} projects={projects} reloadProjects={loadProjects} />;
  else if (loc.path === '/account') page = <AccountPage />;
  else if (!match && loc.path !== '/') page = <NotFound title="Page not found" reason="There is no page at this address." />;
  else if (!match) page = <ProjectsPage projects={projects} />;
  else if (!project) page = <NotFound title="Project not found" reason={PROJECT_NOT_FOUND} />;
  else page = <ProjectRoute project={project} rest={match[2] ?? '/'} params={loc.params} />;

  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="top">
        <Link to="/" className="brand">
          jtrace
        </Link>
        {project ? (
          <>
            <nav aria-label="Project">
              {projects && projects.length > 1 ? (
                <Link to="/">
                  <UserText text={project.name} /> ▾
                </Link>
              ) : (
                <span className="project-name">
                  <UserText text={project.name} />
                </span>
              )}
              <Link to={`/projects/${project.id}/problems`} aria-current={match?.[2]?.startsWith('/problems') ? 'page' : undefined}>
                Problems
              </Link>
              <Link to={`/projects/${project.id}/journeys`} aria-current={match?.[2]?.startsWith('/journeys') && !loc.params.has('status') && loc.params.get('finding') !== 'lost' ? 'page' : undefined}>
                Journeys
              </Link>
              <Link to={`/projects/${project.id}/journeys?window=day&status=failed`} aria-current={loc.params.get('status') === 'failed' ? 'page' : undefined}>
                Failures
              </Link>
              {/* Journeys that lost data usually complete: the failures leave them out. */}
              <Link to={`/projects/${project.id}/journeys?window=day&finding=lost`} aria-current={match?.[2] === '/journeys' && loc.params.get('finding') === 'lost' && !loc.params.has('status') ? 'page' : undefined}>
                Lost data
              </Link>
              <Link to={`/projects/${project.id}/expectations`} aria-current={match?.[2] === '/expectations' ? 'page' : undefined}>
                Expectations
              </Link>
              <AllowedLink projectId={project.id} action="alerts.manage" to={`/projects/${project.id}/alerts`} current={match?.[2] === '/alerts'}>
                Alerts
              </AllowedLink>
              <AllowedLink projectId={project.id} action="members.manage" to={`/settings/projects/${project.id}/members`} current={false}>
                Members
              </AllowedLink>
            </nav>
            <HeaderSearch projectId={project.id} initial={match?.[2] === '/search' ? (loc.params.get('q') ?? '') : ''} />
          </>
        ) : null}
        {/* One UTC / local switch for every page; the header re-renders them all when it changes. */}
        <TimeZoneToggle />
        <Link to="/settings" className="settings-link" aria-current={loc.path.startsWith('/settings') ? 'page' : undefined}>
          Settings
        </Link>
        <AccountMenu onSignOut={() => void signOut()} />
      </header>
      <main id="main">{page}</main>
      <BuildFooter />
    </>
  );
}

/** A link shown only when the person's role allows the action it leads to. */
function AllowedLink({ projectId, action, to, current, children }: { projectId: string; action: Parameters<typeof useAllowed>[1]; to: string; current: boolean; children: string }) {
  if (!useAllowed(projectId, action)) return null;
  return (
    <Link to={to} aria-current={current ? 'page' : undefined}>
      {children}
    </Link>
  );
}

function AlertsRoute({ project }: { project: Project }) {
  if (!useAllowed(project.id, 'alerts.manage')) return <RoleNeeded title="Alerts" action="alerts.manage" projectId={project.id} />;
  return <AlertRulesPage project={project} />;
}

function ProjectRoute({ project, rest, params }: { project: Project; rest: string; params: URLSearchParams }) {
  // Members moved into Settings; the old address keeps working.
  if (rest === '/members') return <Redirect to={`/settings/projects/${project.id}/members`} />;
  if (rest === '/compare') return <ComparePage project={project} params={params} />;
  if (rest === '/expectations') return <ExpectationsPage project={project} />;
  if (rest === '/alerts') return <AlertsRoute project={project} />;
  if (rest === '/search') return <SearchPage project={project} q={params.get('q') ?? ''} />;
  const journey = /^\/journeys\/([^/]+)$/.exec(rest);
  if (journey) return <JourneyPage project={project} journeyId={decodeURIComponent(journey[1]!)} params={params} />;
  if (rest === '/problems') return <ProblemsPage project={project} params={params} />;
  const problem = /^\/problems\/([^/]+)$/.exec(rest);
  if (problem) return <ProblemPage key={problem[1]} project={project} problemId={decodeURIComponent(problem[1]!)} />;
  if (rest === '/') return <ProjectLanding project={project} />;
  // The journeys list filtered by a problem (docs/problems.md, GET /problems/:id/journeys).
  if (rest === '/journeys' && params.has('problem')) return <ProblemJourneysPage project={project} params={params} />;
  if (rest === '/journeys') return <JourneysPage project={project} params={params} />;
  return <NotFound title="Page not found" reason="There is no page at this address in this project." projectId={project.id} />;
}

function Redirect({ to }: { to: string }) {
  useEffect(() => navigate(to, { replace: true }), [to]);
  return <Loading what="the page" />;
}
