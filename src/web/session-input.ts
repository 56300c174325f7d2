// The sign-in body on its own, so the interface can take its request type from it without
// reaching the session routes' server code.
import { z } from 'zod';

export const signInBodySchema = z.object({ token: z.string() });
/** A person's sign-in; lengths are checked by the sign-in itself. */
export const passwordSignInBodySchema = z.object({ email: z.string(), password: z.string() });
/** Setting a password from a one-time link (the token is the link's fragment). */
export const setPasswordBodySchema = z.object({ token: z.string(), password: z.string() });
