// Prints how long the error-text masker takes on adversarial 200,000-character inputs, to show
// it stays linear. Run: npx tsx bench/mask-error-text.ts
import { maskCredentialText } from '../src/protocol/redaction/mask-error-text.ts';

const inputs: Record<string, string> = {
  'eyJ repeated': 'eyJ'.repeat(66_000),
  'scheme separators': '://'.repeat(66_000),
  'at signs': '@'.repeat(200_000),
  'password= repeated': 'password='.repeat(22_000),
  'Bearer repeated': 'Bearer '.repeat(28_000),
  'PEM headers': '-----BEGIN RSA PRIVATE KEY-----'.repeat(6_000),
  'quoted names': '"password":'.repeat(18_000),
};
for (const size of [1, 2, 4]) {
  for (const [name, base] of Object.entries(inputs)) {
    const text = base.repeat(size);
    const started = performance.now();
    maskCredentialText(text);
    console.log(`${name.padEnd(20)} ${String(text.length).padStart(9)} chars  ${(performance.now() - started).toFixed(1).padStart(8)} ms`);
  }
}
