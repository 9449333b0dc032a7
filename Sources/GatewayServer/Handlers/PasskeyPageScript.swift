import Crypto
import Foundation
import GatewayCore

/// The hosted page's passkey script (issue 64): the one other inline script the sign-in pages'
/// policy allows, by its hash. On a screen with a `passkey` field it hands the field's options
/// (its `data-options`, the same WebAuthn JSON a native app gets) to `navigator.credentials`:
/// beside an identifier field as a conditional request (the browser offers the person's
/// passkeys in the field's autofill); on create-passkey and the step-up's passkey screen when
/// the person presses the submit button. The credential goes into the hidden field as `toJSON()` gives it and the form is
/// sent. Without the script, or in a browser without WebAuthn's JSON methods, the field stays
/// empty and the other factors work as they do.
enum PasskeyPageScript {
    static let source =
        "(function(){var f=document.getElementById('f-credential');var P=window.PublicKeyCredential;"
        + "if(!f||!P||!P.parseRequestOptionsFromJSON||!P.parseCreationOptionsFromJSON)return;"
        + "var form=f.form,o=JSON.parse(f.getAttribute('data-options'));"
        + "function send(c){f.value=JSON.stringify(c.toJSON());var a=document.createElement('input');"
        + "a.type='hidden';a.name='action';a.value='submit';form.appendChild(a);HTMLFormElement.prototype.submit.call(form)}"
        + "if(!o.user&&document.getElementById('f-identifier')){if(P.isConditionalMediationAvailable)"
        + "P.isConditionalMediationAvailable().then(function(a){if(a)navigator.credentials.get({mediation:'conditional',"
        + "publicKey:P.parseRequestOptionsFromJSON(o)}).then(send,function(){})});return}"
        + "form.addEventListener('submit',function(e){if(f.value||!e.submitter||e.submitter.value!=='submit')return;"
        + "e.preventDefault();(o.user?navigator.credentials.create({publicKey:P.parseCreationOptionsFromJSON(o)})"
        + ":navigator.credentials.get({publicKey:P.parseRequestOptionsFromJSON(o)})).then(send,function(){})})})()"

    /// Its `script-src` source.
    static let hash = "sha256-" + Data(SHA256.hash(data: Data(source.utf8))).base64EncodedString()

    /// A passkey field on the page: a hidden input carrying the options, filled by the script.
    static func field(_ field: JourneyScreen.Field, id: String, error: String) -> String {
        let options = (try? field.options?.json()).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        return "<input type=\"hidden\" id=\"\(id)\" name=\"\(LoginPage.escape(field.name))\" value=\"\" "
            + "data-options=\"\(LoginPage.escape(options))\">\(error)<script>\(source)</script>"
    }
}
