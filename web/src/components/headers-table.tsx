// A replay's request headers, name and value, as the preview shows them and as a sent run stored them.
import { UserText } from './user-text.tsx';

export function HeadersTable({ headers, caption }: { headers: Record<string, string>; caption: string }) {
  return (
    <table className="headers">
      <caption>{caption}</caption>
      <tbody>
        {Object.entries(headers).map(([name, value]) => (
          <tr key={name}>
            <th scope="row">
              <UserText text={name} />
            </th>
            <td>
              <code>
                <UserText text={value} />
              </code>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
