// The sign-in body on its own, so the interface can take its request type from it without
// reaching the session routes' server code.
import { z } from 'zod';

export const signInBodySchema = z.object({ token: z.string() });
