// Expectations of a project (docs/findings.md): what a journey of an entity type should look
// like. A suggestion from history fills the form; nothing is saved until the admin saves it.

import { useEffect, useRef, useState, type FormEvent } from 'react';
import { request, type Expectation, type ExpectationRequest, type ExpectationSuggestion, type Project } from '../api.ts';
import { ErrorMessage, Loading } from '../components/common.tsx';
import { FormProblems, invalid } from '../components/form-problems.tsx';
import { problem, type FieldLabels, type FieldProblem } from '../lib/field-problems.ts';
import { UserText } from '../components/user-text.tsx';
import { showBidiControls } from '../lib/bidi.ts';
import { useAllowed } from '../roles.tsx';

interface Draft {
  entityType: string;
  steps: string;
  optional: string;
  finalStep: string;
  maxGapSeconds: string;
  deadlineSeconds: string;
}

const EMPTY: Draft = { entityType: '', steps: '', optional: '', finalStep: '', maxGapSeconds: '', deadlineSeconds: '' };

function draftOf(entityType: string, e: Pick<Expectation, 'steps' | 'maxGapSeconds' | 'deadlineSeconds'> & { finalStep: string | null }): Draft {
  return {
    entityType,
    steps: e.steps.map((s) => s.name).join('\n'),
    optional: e.steps.filter((s) => s.optional).map((s) => s.name).join('\n'),
    finalStep: e.finalStep ?? '',
    maxGapSeconds: e.maxGapSeconds === null ? '' : String(e.maxGapSeconds),
    deadlineSeconds: e.deadlineSeconds === null ? '' : String(e.deadlineSeconds),
  };
}

const LABELS: FieldLabels = {
  entityType: 'Entity type',
  steps: 'Steps in order',
  'steps.*': 'Steps in order',
  finalStep: 'Final step',
  maxGapSeconds: 'Longest gap between steps',
  deadlineSeconds: 'Deadline',
};

/** The form's own checks, the server's rules in words (src/findings/expectation-input.ts). */
function draftProblems(draft: Draft): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const steps = lines(draft.steps);
  const final = draft.finalStep.trim();
  if (draft.entityType.trim() === '') problems.push(problem('entityType', LABELS, 'is required'));
  if (final === '') problems.push(problem('finalStep', LABELS, 'is required'));
  else if (steps.length > 0 && !steps.includes(final)) problems.push(problem('finalStep', LABELS, `“${final}” is not one of the steps: add it to the steps or choose one of them`));
  for (const key of ['maxGapSeconds', 'deadlineSeconds'] as const) {
    const text = draft[key].trim();
    if (text !== '' && !(/^\d+$/.test(text) && Number(text) > 0)) problems.push(problem(key, LABELS, 'must be a whole number of seconds, more than 0, or empty for none'));
  }
  return problems;
}

const lines = (text: string) => text.split('\n').map((line) => line.trim()).filter((line) => line !== '');
const seconds = (text: string) => (text.trim() === '' ? null : Number(text));

export function ExpectationsPage({ project }: { project: Project }) {
  const [items, setItems] = useState<Expectation[] | null>(null);
  const [draft, setDraft] = useState<Draft>(EMPTY);
  const [status, setStatus] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [problems, setProblems] = useState<FieldProblem[]>([]);
  const base = `/v1/projects/${project.id}/expectations`;
  const options = { projectId: project.id };
  // Viewers and operators read the expectations; only a role that may set them gets the form.
  const canWrite = useAllowed(project.id, 'expectations.write');
  const stepsField = useRef<HTMLTextAreaElement>(null);
  const edit = (e: Expectation) => {
    setDraft(draftOf(e.entityType, e));
    setStatus(null);
    // The form is below the table: move there, so keyboard and screen-reader users follow.
    requestAnimationFrame(() => stepsField.current?.focus());
  };

  const reload = () => request<{ items: Expectation[] }>(base, options).then((data) => setItems(data.items), setError);
  useEffect(() => {
    document.title = showBidiControls(`Expectations · ${project.name} · jtrace`);
    void reload();
  }, [project.id]);

  const field = (name: keyof Draft) => ({ name, value: draft[name], onChange: (event: { currentTarget: { value: string } }) => setDraft({ ...draft, [name]: event.currentTarget.value }) });

  const suggest = async () => {
    setError(null);
    setStatus(null);
    try {
      const suggestion = await request<ExpectationSuggestion>(`${base}/${encodeURIComponent(draft.entityType)}/suggestion?journeys=100`, options);
      setDraft(draftOf(draft.entityType, suggestion));
      setStatus(`Suggested from ${suggestion.journeys} completed journeys: edit, then save.`);
    } catch (e) {
      setError(e);
    }
  };

  const save = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setError(null);
    const found = draftProblems(draft);
    setProblems(found);
    if (found.length > 0) return;
    const optional = new Set(lines(draft.optional));
    const body: ExpectationRequest = {
      steps: lines(draft.steps).map((name) => ({ name, optional: optional.has(name) })),
      finalStep: draft.finalStep.trim(),
      maxGapSeconds: seconds(draft.maxGapSeconds),
      deadlineSeconds: seconds(draft.deadlineSeconds),
    };
    try {
      await request<Expectation>(`${base}/${encodeURIComponent(draft.entityType.trim())}`, { ...options, method: 'PUT', body });
      setStatus(`Saved the expectation of ${draft.entityType.trim()}; its journeys are analysed again.`);
      await reload();
    } catch (e) {
      setError(e);
    }
  };

  return (
    <>
      <div className="page-heading">
        <h1>Expectations</h1>
      </div>
      <p className="muted">What a journey of an entity type should look like. A journey past its deadline without its final step, or with a longer gap between steps, is overdue; one that reaches its final step without a required step skipped it.</p>
      {canWrite ? null : <ErrorMessage error={error} />}
      {items === null ? <Loading what="expectations" /> : null}
      {items && items.length > 0 ? (
        <table className="settings-table stack">
          <caption>Saved expectations</caption>
          <thead>
            <tr>
              <th scope="col">Entity type</th>
              <th scope="col">Steps</th>
              <th scope="col">Final step</th>
              <th scope="col">Longest gap</th>
              <th scope="col">Deadline</th>
              {canWrite ? <th scope="col"><span className="visually-hidden">Edit</span></th> : null}
            </tr>
          </thead>
          <tbody>
            {items.map((e) => (
              <tr key={e.entityType}>
                <td data-label="Entity type"><UserText text={e.entityType} /></td>
                <td data-label="Steps">{e.steps.map((s) => (s.optional ? `${s.name} (optional)` : s.name)).join(' → ') || '—'}</td>
                <td data-label="Final step"><UserText text={e.finalStep} /></td>
                <td data-label="Longest gap">{e.maxGapSeconds === null ? '—' : `${e.maxGapSeconds} s`}</td>
                <td data-label="Deadline">{e.deadlineSeconds === null ? '—' : `${e.deadlineSeconds} s`}</td>
                {canWrite ? (
                  <td className="cell-actions">
                    <button type="button" className="link-button" onClick={() => edit(e)}>
                      Edit <span className="visually-hidden"><UserText text={e.entityType} /></span>
                    </button>
                  </td>
                ) : null}
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {items && items.length === 0 ? <p role="status">No expectation yet.</p> : null}
      {!canWrite ? <p className="muted">Your role reads the expectations; an admin of this project sets them.</p> : null}
      {/* The settings forms' layout: each label above its field, each button as wide as its text. */}
      {canWrite ? <form className="card settings-form" onSubmit={save} aria-label="Expectation">
        <h2>Set an expectation</h2>
        <label htmlFor="expectation-entity-type">Entity type</label>
        <input id="expectation-entity-type" {...field('entityType')} required />
        <div>
          <button type="button" onClick={suggest} disabled={draft.entityType.trim() === ''}>
            Suggest from history
          </button>
        </div>
        <label htmlFor="expectation-steps">Steps in order (one per line)</label>
        <textarea id="expectation-steps" ref={stepsField} {...field('steps')} rows={6} />
        <label htmlFor="expectation-optional">Optional steps (one per line)</label>
        <textarea id="expectation-optional" {...field('optional')} rows={2} />
        <label htmlFor="expectation-final-step">Final step</label>
        <input id="expectation-final-step" {...field('finalStep')} aria-invalid={invalid(error, LABELS, problems, 'finalStep')} required />
        <label htmlFor="expectation-max-gap">Longest gap between steps (seconds)</label>
        <input id="expectation-max-gap" {...field('maxGapSeconds')} aria-invalid={invalid(error, LABELS, problems, 'maxGapSeconds')} inputMode="numeric" />
        <label htmlFor="expectation-deadline">Deadline for the whole journey (seconds)</label>
        <input id="expectation-deadline" {...field('deadlineSeconds')} aria-invalid={invalid(error, LABELS, problems, 'deadlineSeconds')} inputMode="numeric" />
        <div>
          <button type="submit">Save</button>
        </div>
        <FormProblems error={error} labels={LABELS} problems={problems} />
        {status ? (
          <p role="status" className="notice">
            {status}
          </p>
        ) : null}
      </form> : null}
    </>
  );
}
